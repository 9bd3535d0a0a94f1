import Foundation
import OAuthFlow

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
