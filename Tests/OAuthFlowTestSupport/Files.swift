import Foundation
import Testing

/// The repository root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A fresh temporary directory, removed by the caller with `cleanUp()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("oauthflow-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` (folders created as needed) and returns its URL.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }

    public func cleanUp() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// A product built beside the test bundle (the `oauthflow` CLI, the `StoreWriter` helper).
public func builtProduct(_ name: String) throws -> URL {
    var candidates: [URL] = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(repositoryRoot.appendingPathComponent(".build/debug"))
    let found = candidates.map { $0.appendingPathComponent(name) }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    return try #require(found, "cannot find the built \(name); run `swift build --build-tests`")
}

/// Runs a built product from the repository root and returns its exit status and output (waiting off the cooperative pool).
public func runProduct(_ name: String, _ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await runProcess(try builtProduct(name), arguments, environment: extra)
}

/// Runs a program from the repository root and returns its exit status and output.
public func runProcess(_ executable: URL, _ arguments: [String], environment extra: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await ChildProcess.run(executable, arguments, directory: repositoryRoot, environment: extra)
}

/// Runs a program from the repository root with `input` on its stdin.
public func runWithInput(_ executable: URL, _ arguments: [String], input: String, environment: [String: String]) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await ChildProcess.run(executable, arguments, directory: repositoryRoot, environment: environment, input: input)
}

/// A command line as a POSIX shell splits it (quotes, `~` as `home`), without its trailing comment.
public func shellWords(_ line: String, home: String) -> [String] {
    var words: [String] = []
    var current = "", quote: Character?, inWord = false
    for character in line {
        if let open = quote {
            if character == open { quote = nil } else { current.append(character) }
        } else if character == "'" || character == "\"" {
            quote = character
            inWord = true
        } else if character == "#", !inWord {
            break
        } else if character == " " || character == "\t" {
            if inWord { words.append(current) }
            current = ""
            inWord = false
        } else {
            if character == "~", !inWord { current += home } else { current.append(character) }
            inWord = true
        }
    }
    if inWord { words.append(current) }
    return words
}
