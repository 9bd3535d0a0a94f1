import Foundation
import OAuthFlow

/// Opens a URL in the user's browser, as `gh` and Python's webbrowser do.
enum Browser {
    /// The command that will open URLs, if any: `$BROWSER` (its first `:`-separated entry),
    /// else `xdg-open` or `open` from the PATH.
    static func command(environment: [String: String]) -> [String]? {
        if let browser = environment["BROWSER"]?.split(separator: ":").first.map(String.init),
           !browser.trimmingCharacters(in: .whitespaces).isEmpty {
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

    /// Starts the browser without waiting for it. `%s` in the command is replaced by the URL;
    /// without one, the URL is the last argument.
    static func open(_ url: URL, command: [String]) throws {
        var arguments = command
        if arguments.contains(where: { $0.contains("%s") }) {
            arguments = arguments.map { $0.replacingOccurrences(of: "%s", with: url.absoluteString) }
        } else {
            arguments.append(url.absoluteString)
        }
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
        try process.run()
    }
}

/// A one-line status on a terminal, plain lines otherwise.
final class Progress: @unchecked Sendable {
    private let isTerminal = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    func start(_ message: String) {
        guard isTerminal else {
            Output.stderr(message + "\n")
            return
        }
        let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
        let started = Date()
        lock.withLock {
            task = Task {
                var index = 0
                while !Task.isCancelled {
                    let elapsed = Int(Date().timeIntervalSince(started))
                    Output.stderrControl("\r\u{1B}[2K" + TerminalText.escaped("\(frames[index % frames.count]) \(message) \(elapsed)s"))
                    index += 1
                    try? await Task.sleep(nanoseconds: 100_000_000)
                }
            }
        }
    }

    func stop() {
        lock.withLock {
            task?.cancel()
            task = nil
        }
        if isTerminal { Output.stderrControl("\r\u{1B}[2K") }
    }
}
