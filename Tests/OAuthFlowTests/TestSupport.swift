import Foundation
import Logging
import Testing
import OAuthFlowTestSupport
@testable import OAuthFlow

/// A fresh temporary directory, removed by the caller with `cleanUp()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("oauthflow-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A minimal valid descriptor with the given id and extra YAML.
func descriptorText(id: String, displayName: String = "Example", extra: String = "") -> String {
    """
    schema_version: 1
    id: \(id)
    display_name: \(displayName)
    protocol: oauth2
    issuer: https://auth.example.com
    endpoints:
      authorization: https://auth.example.com/authorize
      token: https://auth.example.com/token
    \(extra)
    """
}

/// Collects log messages so tests can see what the library said.
final class CapturingLogHandler: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let line = "\(event.message) " + (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lock.lock()
        storage.append(line)
        lock.unlock()
    }
}

/// The repository root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A product built beside the test bundle (the `oauthflow` CLI, the `StoreWriter` helper).
func builtProduct(_ name: String) throws -> URL {
    var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(repositoryRoot.appendingPathComponent(".build/debug"))
    let found = candidates.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    return try #require(found, "cannot find the built \(name); run `swift build --build-tests`")
}

/// Runs a built product from the repository root and returns its exit status and output.
func runProduct(_ name: String, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    try runProcess(try builtProduct(name), arguments, environment: extra)
}

/// Runs a program from the repository root and returns its exit status and output.
func runProcess(_ executable: URL, _ arguments: [String], environment extra: [String: String] = [:]) throws -> (status: Int32, stdout: String, stderr: String) {
    try ChildProcess.run(executable, arguments, directory: repositoryRoot, environment: extra)
}
