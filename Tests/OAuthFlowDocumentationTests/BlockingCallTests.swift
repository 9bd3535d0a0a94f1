import Foundation
import Testing
import OAuthFlowTestSupport

/// No code that runs on Swift's cooperative pool blocks a thread of it in a call that waits on something else
/// (another process, a lock, the network, a timer).
///
/// The pool has as many threads as cores, two on the CI machines: one test blocked in `connect` or in a wait for a
/// child held every task of the test process, and PostgreSQL stores' 10 s deadlines fired with "did not answer
/// within" while the server had nothing to do. The library, the examples and the test targets that run inside the
/// test process are read here; the worker executables (`Tests/PostgresWorker`, `RefreshWorker`, `StoreWriter`) are
/// processes of their own whose top-level code runs on their main thread.
///
/// A call below is fine where it is awaited on its line (an async function of that name, or blocking work handed to
/// `OffPool.run`, which runs it on a thread of its own), where it is declared, or where a comment starting
/// `// blocks:` at the end of its line or on the line above says why (a thread of its own, a wait of milliseconds).
@Suite struct BlockingCallTests {
    /// A call that waits on something else: its name up to the parenthesis, whether it is a call of that name only
    /// when no identifier or `.` comes before it (`sleep(`, not `Task.sleep(`), and what it waits for.
    struct BlockingCall: Sendable {
        let name: String
        let standsAlone: Bool
        let waitsFor: String

        init(_ name: String, standsAlone: Bool = false, _ waitsFor: String) {
            self.name = name
            self.standsAlone = standsAlone
            self.waitsFor = waitsFor
        }
    }

    static let blockingCalls: [BlockingCall] = [
        BlockingCall("waitUntilExit(", "a child process (Process.waitUntilExit)"),
        BlockingCall("waitpid(", "a child process (waitpid)"),
        BlockingCall("readDataToEndOfFile(", "the writer of a pipe or file to close it"),
        BlockingCall("readLine(", standsAlone: true, "a line on standard input"),
        BlockingCall("Thread.sleep(", "a timer (a sleeping thread)"),
        BlockingCall("usleep(", standsAlone: true, "a timer (a sleeping thread)"),
        BlockingCall("sleep(", standsAlone: true, "a timer (a sleeping thread)"),
        BlockingCall("DispatchSemaphore(", "a semaphore"),
        BlockingCall(".sync {", "another queue (DispatchQueue.sync)"),
        BlockingCall(".sync(execute", "another queue (DispatchQueue.sync)"),
        BlockingCall(".wait(", "a future, a condition or a group (.wait)"),
        BlockingCall("syncShutdownGracefully(", "an event loop group to shut down"),
        BlockingCall("connect(", standsAlone: true, "the network (a blocking connect)"),
        BlockingCall("poll(", standsAlone: true, "a socket (poll)"),
    ]

    /// One call that blocks where it stands: `file:line: what it waits for: the line`.
    ///
    /// Plain substring searches, no `Regex`: this reads every Swift file of the repository, and in a debug build
    /// regular expressions took 20 s of a pool thread for it.
    static func findings(in text: String, file: String) -> [String] {
        var found: [String] = []
        let lines = text.components(separatedBy: "\n")
        for (index, line) in lines.enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.hasPrefix("//"), !trimmed.hasPrefix("*") else { continue }
            // Why it may block, said on its line or on a comment line just above.
            guard !line.contains("// blocks: "), index == 0 || !lines[index - 1].trimmingCharacters(in: .whitespaces).hasPrefix("// blocks: ") else {
                continue
            }
            // The code before a trailing comment (a `//` inside a string such as a URL cuts it short: a false negative, never a false alarm).
            let code = line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? line
            for call in blockingCalls {
                var searched = code.startIndex
                while let match = code.range(of: call.name, range: searched..<code.endIndex) {
                    searched = match.upperBound
                    let before = code[..<match.lowerBound]
                    if call.standsAlone, let previous = before.last, previous == "." || previous == "_" || previous.isLetter || previous.isNumber {
                        continue
                    }
                    // Awaited: an async function of that name, or blocking work handed to a thread of its own.
                    if before.contains("await ") { continue }
                    // Declared, not called.
                    if before.trimmingCharacters(in: .whitespaces).hasSuffix("func") { continue }
                    found.append("\(file):\(index + 1): waits for \(call.waitsFor): \(trimmed)")
                }
            }
            if code.contains("flock("), !code.contains("LOCK_NB"), !code.contains("LOCK_UN") {
                found.append("\(file):\(index + 1): waits for another process's lock (flock without LOCK_NB): \(trimmed)")
            }
        }
        return found
    }

    /// The Swift files read: Sources, Examples and the test targets that run in the test process.
    static func checkedFiles() throws -> [String] {
        var files: [String] = []
        let manager = FileManager.default
        let tests = try manager.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Tests").path)
            .filter { $0.hasPrefix("OAuthFlow") }.map { "Tests/" + $0 }
        for top in ["Sources", "Examples"] + tests.sorted() {
            guard let walker = manager.enumerator(atPath: repositoryRoot.appendingPathComponent(top).path) else { continue }
            while let path = walker.nextObject() as? String {
                guard path.hasSuffix(".swift"), !path.contains(".build/") else { continue }
                // This file's own examples are strings, not calls.
                if top + "/" + path != "Tests/OAuthFlowDocumentationTests/BlockingCallTests.swift" { files.append(top + "/" + path) }
            }
        }
        return files.sorted()
    }

    @Test func nothingOnThePoolWaitsForAnotherProcessALockOrTheNetwork() throws {
        let files = try Self.checkedFiles()
        #expect(files.contains("Tests/OAuthFlowTestSupport/OffPool.swift") && files.count > 200, "the walk found the sources: \(files.count)")
        var findings: [String] = []
        for file in files {
            findings += Self.findings(in: try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8), file: file)
        }
        #expect(findings.isEmpty, "run these with OffPool.run (tests) or on a thread of their own:\n\(findings.joined(separator: "\n"))")
    }

    @Test func theCheckSeesABlockingCallAndLetsAnAwaitedOneBe() {
        #expect(Self.findings(in: "        process.waitUntilExit()", file: "T.swift").count == 1)
        #expect(Self.findings(in: "    let data = pipe.fileHandleForReading.readDataToEndOfFile()", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        try channel.close().wait()", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        usleep(20_000)", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        let result = connect(fd, address, length)", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        flock(fd, LOCK_EX)", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        let status = await worker.waitUntilExit()", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "        let n = await OffPool.run { connect(fd, address, length) }", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "    func waitUntilExit() async -> Int32 {", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "    public func sleep(seconds: TimeInterval) async throws {", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "        try await Task.sleep(for: .seconds(1))", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "        #expect(try await poll() == \"slow_down\")", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "        try? group.syncShutdownGracefully()", file: "T.swift").count == 1)
        #expect(Self.findings(in: "        while flock(fd, LOCK_EX | LOCK_NB) != 0 {", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "        while waitpid(pid, &status, 0) < 0 {}  // blocks: on the reaper's thread", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "    /// Waits like `process.waitUntilExit()` would.", file: "T.swift").isEmpty)
        #expect(Self.findings(in: "    // blocks: on a thread of its own\n    connect(fd, address, length)", file: "T.swift").isEmpty)
    }
}
