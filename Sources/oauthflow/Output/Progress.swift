#if CLI
import Foundation
import OAuthFlow

/// A one-line status on a terminal, plain lines otherwise.
final class Progress: @unchecked Sendable {
    /// Whether stderr is a terminal: a status line there is redrawn; otherwise each is a plain line.
    let isTerminal = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var task: Task<Void, Never>?

    /// Shows `message` with the time elapsed, or the time left until `deadline`.
    func start(_ message: String, deadline: Date? = nil) {
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
                    let clock: String
                    if let deadline {
                        let left = max(0, Int(deadline.timeIntervalSinceNow))
                        clock = String(format: "%d:%02d left", left / 60, left % 60)
                    } else {
                        clock = "\(Int(Date().timeIntervalSince(started)))s"
                    }
                    Output.stderrControl("\r\u{1B}[2K" + TerminalText.escaped("\(frames[index % frames.count]) \(message) \(clock)"))
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
#endif
