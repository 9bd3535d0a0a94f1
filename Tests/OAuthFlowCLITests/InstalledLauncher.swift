import Foundation
import OAuthFlowTestSupport
import Testing

/// The installed layout in a temporary directory: the launcher as `bin/oauthflow`, the full command beside it as
/// `bin/oauthflow-full`, and a home whose XDG directories are the defaults under it.
struct InstalledLauncher {
    let root: TemporaryDirectory
    let bin: URL
    let home: URL
    var state: URL { home.appendingPathComponent(".local/state/oauthflow") }
    var environment: [String: String] { ["HOME": home.path, "XDG_CONFIG_HOME": "", "XDG_STATE_HOME": ""] }

    init() throws {
        root = try TemporaryDirectory()
        bin = root.url.appendingPathComponent("bin")
        home = root.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try Self.copyExecutable(try builtProduct("oauthflow-launcher"), to: bin.appendingPathComponent("oauthflow"))
        try FileManager.default.createSymbolicLink(
            at: bin.appendingPathComponent("oauthflow-full"), withDestinationURL: try builtProduct("oauthflow"))
    }

    /// A copy the launcher must be (it finds `oauthflow-full` beside its own path, so a link will not do), written
    /// through a close-on-exec descriptor: a process another test forks meanwhile does not keep it open for writing.
    static func copyExecutable(_ source: URL, to destination: URL) throws {
        let bytes = try Data(contentsOf: source)
        let fd = open(destination.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                offset += written
            }
        }
    }

    /// Runs `bin/oauthflow` with `arguments` (and `input` on its standard input).
    func run(_ arguments: [String], input: String? = nil) async throws -> (status: Int32, stdout: String, stderr: String) {
        let launcher = bin.appendingPathComponent("oauthflow")
        // A process forked elsewhere in this test run between another copy's open and its own exec may still hold
        // a descriptor of the new file for a moment: the exec then fails with ETXTBSY, and is tried again.
        for attempt in 1... {
            do {
                if let input { return try await runWithInput(launcher, arguments, input: input, environment: environment) }
                return try await runProcess(launcher, arguments, environment: environment)
            } catch where "\(error)".contains("Text file busy") && attempt < 50 {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        fatalError("unreachable")
    }

    /// Runs `body` with `bin/oauthflow-full` taken away: what the launcher still answers is its own.
    func withoutTheFullCommand<T>(_ body: () async throws -> T) async throws -> T {
        let full = bin.appendingPathComponent("oauthflow-full")
        let destination = try FileManager.default.destinationOfSymbolicLink(atPath: full.path)
        try FileManager.default.removeItem(at: full)
        defer { try? FileManager.default.createSymbolicLink(atPath: full.path, withDestinationPath: destination) }
        return try await body()
    }

    func cleanUp() { root.cleanUp() }
}
