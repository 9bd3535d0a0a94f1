import Foundation
import Testing

/// Issue 56 item 8: App Store Connect refuses an app whose code calls `stat`, `fstat` or `lstat` (file timestamp APIs)
/// without a reason in a privacy manifest. Every library target that calls them carries a well-formed
/// `PrivacyInfo.xcprivacy`, declared in Package.swift as an Apple-platform resource.
@Suite struct PrivacyManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `.target(…)` declarations of Package.swift (libraries; not executables or tests), by name, with their text.
    static func libraryTargets() throws -> [String: String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var targets: [String: String] = [:]
        for start in manifest.ranges(of: ".target(") {
            // To the parenthesis that closes it (the declarations hold no parenthesis inside a string).
            var depth = 0
            var end = start.upperBound
            for index in manifest[start.lowerBound...].indices {
                if manifest[index] == "(" { depth += 1 }
                if manifest[index] == ")" { depth -= 1 }
                if depth == 0, manifest[index] == ")" {
                    end = manifest.index(after: index)
                    break
                }
            }
            let declaration = String(manifest[start.lowerBound..<end])
            if let name = declaration.firstMatch(of: /name: "([^"]+)"/)?.output.1 { targets[String(name)] = declaration }
        }
        return targets
    }

    /// Whether any Swift file under `directory` calls `stat`, `fstat` or `lstat`, outside comments.
    static func callsStat(_ directory: URL) -> Bool {
        guard let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else { return false }
        for case let file as URL in files where file.pathExtension == "swift" {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                // A regex literal is parsed each time it is evaluated: only lines that can match reach it.
                if line.contains("stat("), line.contains(/(^|[^A-Za-z0-9_.])(f|l)?stat\(/) { return true }
            }
        }
        return false
    }

    @Test func everyLibraryTargetThatCallsStatCarriesAManifest() throws {
        let targets = try Self.libraryTargets()
        #expect(targets["OAuthFlow"] != nil && targets["OAuthFlowFiles"] != nil, "Package.swift was read: \(targets.keys.sorted())")
        var covered: [String] = []
        for (name, declaration) in targets.sorted(by: { $0.key < $1.key }) {
            let path = declaration.firstMatch(of: /path: "([^"]+)"/).map { String($0.output.1) } ?? "Sources/\(name)"
            // What ships: Sources/ (test support and examples are never in an app).
            let directory = Self.root.appendingPathComponent(path)
            guard path.hasPrefix("Sources/"), Self.callsStat(directory) else { continue }
            covered.append(name)
            #expect(declaration.contains("resources: privacyManifest") || declaration.contains("+ privacyManifest"), "\(name) lists its manifest")
            #expect(declaration.contains("exclude: privacyManifestExcluded"), "\(name) leaves it out off Apple platforms")
            let file = directory.appendingPathComponent("PrivacyInfo.xcprivacy")
            let data = try Data(contentsOf: file)
            let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any], "\(name)")
            #expect(plist["NSPrivacyTracking"] as? Bool == false)
            #expect((plist["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true, "a library collects nothing")
            let accessed = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
            let timestamps = accessed.first { $0["NSPrivacyAccessedAPIType"] as? String == "NSPrivacyAccessedAPICategoryFileTimestamp" }
            #expect(timestamps?["NSPrivacyAccessedAPITypeReasons"] as? [String] == ["C617.1"], "\(name): files inside the app's container")
        }
        #expect(Set(covered).isSuperset(of: ["OAuthFlow", "OAuthFlowFiles", "OAuthFlowLint"]), "\(covered)")
    }

    @Test func theManifestsAreDeclaredOnAppleOnly() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        #expect(manifest.contains(#"let privacyManifest: [Resource] = [.copy("PrivacyInfo.xcprivacy")]"#))
        #expect(manifest.contains(#"let privacyManifestExcluded = ["PrivacyInfo.xcprivacy"]"#))
    }
}
