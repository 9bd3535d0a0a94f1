#if NIO
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The system's browser, as `gh` and Python's `webbrowser` find it: the first entry of
/// `$BROWSER` (`%s` stands for the URL, otherwise it is appended), else `xdg-open` or
/// `open` from the `PATH`. On Linux and macOS; elsewhere ``open(_:)`` throws ``BrowserError``.
public struct SystemBrowser: BrowserOpener {
    /// The command that will run, or nil when there is none.
    public let command: [String]?

    /// - Parameter environment: Where `BROWSER` and `PATH` are read: `ProcessInfo.processInfo.environment` for the
    ///   process's (the library never reads it by itself).
    public init(environment: [String: String]) {
        command = Self.command(environment: environment)
    }

    static func command(environment: [String: String]) -> [String]? {
        if let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init),
            !browser.trimmingCharacters(in: .whitespaces).isEmpty
        {
            return browser.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        }
        for candidate in ["xdg-open", "open"] {
            for directory in (environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
                let path = "\(directory)/\(candidate)"
                if FileManager.default.isExecutableFile(atPath: path) { return [path] }
            }
        }
        return nil
    }

    /// Starts the browser without waiting for it.
    public func open(_ url: URL) async throws {
        guard var arguments = command, !arguments.isEmpty else {
            throw BrowserError(message: "no browser found: set $BROWSER, or install xdg-open")
        }
        if arguments.contains(where: { $0.contains("%s") }) {
            arguments = arguments.map { $0.replacingOccurrences(of: "%s", with: url.absoluteString) }
        } else {
            arguments.append(url.absoluteString)
        }
        #if os(Linux)
        try Self.spawn(arguments)
        #elseif os(macOS)
        let process = Process()
        if arguments[0].contains("/") {
            process.executableURL = URL(fileURLWithPath: arguments[0])
            process.arguments = Array(arguments.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = arguments
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw BrowserError(message: "could not start the browser (\(arguments[0])): \(error)")
        }
        #else
        // iOS, tvOS and watchOS start no other program (Foundation has no `Process` there): an app presents the
        // authorization URL itself.
        throw BrowserError(message: "no browser can be started from this platform; open the URL in the app instead")
        #endif
    }

    #if os(Linux)
    /// Starts the browser with posix_spawn (looked up on PATH when it names no directory), stdin and stdout on
    /// /dev/null, and reaps it on a thread of its own. Foundation's `Process` registers dispatch sources per child,
    /// which break when many come and go in one process (seen in this project's test runs).
    private static func spawn(_ arguments: [String]) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let code = posix_spawnp(&child, arguments[0], &actions, nil, argv, environ)
        guard code == 0 else {
            throw BrowserError(message: "could not start the browser (\(arguments[0])): \(String(cString: strerror(code)))")
        }
        let pid = child
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}  // blocks: on this thread of its own
        }
    }
    #endif
}
#endif
