import Foundation
import OAuthFlowFiles
import OAuthFlowTestSupport
import Testing

/// The memo the launcher prints `providers list` from: it answers only the arguments, terminals, full command and
/// configuration it was made for, and only while every directory it recorded holds the same entries, unchanged.
@Suite final class ProviderListMemoTests {
    let root: TemporaryDirectory
    var bundled: String { root.url.appendingPathComponent("bundled").path }
    var user: String { root.url.appendingPathComponent("config/oauthflow/providers").path }
    var full: String { root.url.appendingPathComponent("oauthflow-full").path }

    init() throws {
        root = try TemporaryDirectory()
        _ = try root.write("bundled/github.yaml", "id: github\n")
        _ = try root.write("bundled/index.json", "{}\n")
        _ = try root.write("oauthflow-full", "binary\n")
    }

    deinit { root.cleanUp() }

    func memo(_ arguments: [String] = ["providers", "list"]) throws -> ProviderListMemo {
        ProviderListMemo(
            arguments: arguments, terminals: [false, false], fullCommand: full,
            fullCommandIdentity: try #require(GitCredentialMemo.identity(of: full)), configHome: root.url.appendingPathComponent("config").path,
            directories: [bundled, user], fingerprint: try #require(ProviderListMemo.fingerprint(of: [bundled, user])), output: Array("github  GitHub\n".utf8)[...],
            errors: Array("warning: \u{1B}[31m escaped already\n".utf8)[...])
    }

    func answers(_ memo: ProviderListMemo, arguments: [String] = ["providers", "list"], terminals: [Bool] = [false, false]) -> Bool {
        memo.answers(arguments: arguments, terminals: terminals, fullCommand: full, configHome: root.url.appendingPathComponent("config").path)
    }

    @Test func itReadsBackWhatItWrote() throws {
        let memo = try memo()
        let text = String(decoding: memo.fingerprint.bytes, as: UTF8.self)
        #expect(
            text.hasPrefix(bundled + "\0P") && text.hasSuffix(user + "\0A") && text.contains("\ngithub.yaml\0") && text.contains("\nindex.json\0"),
            "\(text)")
        #expect(ProviderListMemo.parse(bytes: memo.rendered()) == memo)
        // Cut anywhere, or given one more byte, it is no memo.
        let bytes = memo.rendered()
        for cut in stride(from: 0, to: bytes.count, by: 7) { #expect(ProviderListMemo.parse(bytes: Array(bytes[..<cut])) == nil) }
        #expect(ProviderListMemo.parse(bytes: bytes + [0x0A]) == nil)
        // Sizes that overflow when added, or that are larger than the file, are no memo (not a crash).
        let marker = Array("\nsizes\t".utf8)
        let start = try #require((0...(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }) + 1
        let end = try #require(bytes[start...].firstIndex(of: 0x0A))
        for forged in ["sizes\t9223372036854775807\t1\t0\t0", "sizes\t\(Int.max / 2 + 1)\t\(Int.max / 2 + 1)\t0\t0", "sizes\t-1\t0\t0\t0"] {
            var changed = bytes
            changed.replaceSubrange(start..<end, with: Array(forged.utf8))
            #expect(ProviderListMemo.parse(bytes: changed) == nil, "\(forged)")
        }
        #expect(ProviderListMemo.parse(bytes: Array("oauthflow providers-list memo 4\n\n".utf8)) == nil)
    }

    @Test func itAnswersOnlyWhatItWasMadeFor() throws {
        #expect(answers(try memo()))
        #expect(answers(try memo(["providers", "list", "--json"]), arguments: ["providers", "list", "--json"]))
        #expect(!answers(try memo(), arguments: ["providers", "list", "--json"]))
        #expect(!answers(try memo(), terminals: [true, false]))
        #expect(!answers(try memo(["providers", "list", "--verbose"]), arguments: ["providers", "list", "--verbose"]))
        #expect(!ProviderListMemo.remembers(["providers", "list", "--providers-dir", "."]))
        let memo = try memo()
        #expect(!memo.answers(arguments: ["providers", "list"], terminals: [false, false], fullCommand: full, configHome: "/elsewhere"))
        #expect(!memo.answers(arguments: ["providers", "list"], terminals: [false, false], fullCommand: bundled + "/github.yaml", configHome: root.url.appendingPathComponent("config").path))
    }

    /// The fingerprint is compared piece by piece as the directories are read: a recorded one cut short, or with a byte
    /// more or a byte changed anywhere, answers nothing.
    @Test func onlyTheWholeFingerprintAnswers() throws {
        let memo = try memo()
        #expect(answers(memo))
        // Read back, its fingerprint a slice in the middle of the file's bytes, it answers the same.
        let read = try #require(ProviderListMemo.parse(bytes: memo.rendered()))
        #expect(read.fingerprint.bytes.startIndex > 0 && answers(read))
        let bytes = Array(memo.fingerprint.bytes)
        var variants = [Array(bytes.dropLast()), bytes + [0x0A], Array(bytes.dropFirst())]
        for index in stride(from: 0, to: bytes.count, by: 5) {
            var changed = bytes
            changed[index] ^= 0x01
            variants.append(changed)
        }
        for variant in variants {
            var other = memo
            other.fingerprint = ProviderListMemo.Fingerprint(bytes: variant[...], latestChange: memo.fingerprint.latestChange)
            #expect(!answers(other))
            // Read back from a file as the launcher reads it (its bytes a slice of the file's), the same.
            #expect(ProviderListMemo.parse(bytes: other.rendered()).map { answers($0) } == false)
        }
    }

    @Test func anyChangeToWhatItReadEndsIt() throws {
        // A descriptor edited in place, added, removed; the user's directory made; the full command replaced. Each change
        // also changes a size or the entries, which no timestamp granularity hides (a change within one tick of the
        // listing at the same size is what the full command's two seconds of margin, `isSettled`, is for).
        let edited = try memo()
        _ = try root.write("bundled/github.yaml", "id: gitlab-x\n")
        #expect(!answers(edited))
        let added = try memo()
        _ = try root.write("bundled/gitlab.yaml", "id: gitlab\n")
        #expect(!answers(added))
        let removed = try memo()
        try FileManager.default.removeItem(atPath: bundled + "/gitlab.yaml")
        #expect(!answers(removed))
        let made = try memo()
        try FileManager.default.createDirectory(atPath: user, withIntermediateDirectories: true)
        #expect(!answers(made))
        let replaced = try memo()
        #expect(answers(replaced))
        try FileManager.default.removeItem(atPath: full)
        _ = try root.write("oauthflow-full", "binary 2\n")
        #expect(!answers(replaced))
    }

    @Test func aFileChangedJustNowIsNotSettled() throws {
        let memo = try memo()
        let now = Int(Date().timeIntervalSince1970)
        #expect(!memo.isSettled(now: now), "the files were written just now")
        #expect(memo.isSettled(now: now + 3))
    }
}
