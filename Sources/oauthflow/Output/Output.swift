#if CLI
import ArgumentParser
import Foundation
import Logging
import OAuthFlow

/// Output helpers: results on stdout, people and logs on stderr.
enum Output {
    /// Human-readable text for stdout; control characters from servers and files are escaped.
    static func stdout(_ text: String) {
        write(Data(TerminalText.sanitized(text).utf8), to: .standardOutput)
    }

    /// Machine-readable output (JSON, a token, a response body) for stdout: exact when it goes to a
    /// pipe or a file, with control characters escaped when a person reads it on a terminal.
    static func stdoutExact(_ text: String) {
        stdoutData(Data(text.utf8))
    }

    /// Bytes for stdout, as ``stdoutExact(_:)`` treats text.
    static func stdoutData(_ data: Data) {
        if isatty(STDOUT_FILENO) != 0 {
            write(Data(TerminalText.sanitized(String(decoding: data, as: UTF8.self)).utf8), to: .standardOutput)
        } else {
            write(data, to: .standardOutput)
        }
    }

    /// Bytes for stdout exactly as given, already escaped as the other writers would have (`providers list`, which
    /// keeps what it wrote for the launcher).
    static func stdoutWritten(_ data: Data) {
        write(data, to: .standardOutput)
    }

    /// Text for a person on stderr; control characters from servers and files are escaped.
    static func stderr(_ text: String) {
        write(Data(TerminalText.sanitized(text).utf8), to: .standardError)
    }

    /// Writes terminal control sequences of the CLI's own (the spinner) unescaped.
    static func stderrControl(_ text: String) {
        write(Data(text.utf8), to: .standardError)
    }

    /// Writes `data`; a stream that is closed or full (`>&-`, `>/dev/full`, a reader gone) ends the command with
    /// exit status 1, as a failed write ends any Unix tool, instead of the trap `FileHandle.write(_:)` raises.
    private static func write(_ data: Data, to handle: FileHandle) {
        do {
            try handle.write(contentsOf: data)
        } catch {
            exit(1)
        }
    }

    /// Prints a library error for a person and returns the failure exit code.
    ///
    /// Each line of the error is shown as one line: a line break a server slipped into its
    /// `error_description` cannot start a line of its own.
    /// - Parameter prefix: Before each line: `oauthflow: ` for the credential helpers, whose stderr git and kubectl
    ///   show among their own lines.
    static func fail(_ error: any Error, advice: String? = nil, prefix: String = "") -> ExitCode {
        // A ProviderError's lines are escaped one by one; anything else is shown as one line.
        stderr("\(prefix)error: \(error is ProviderError ? String(describing: error) : line(error))\n")
        if let advice { stderr("\(prefix)hint: \(line(advice))\n") }
        return .failure
    }

    /// A value (an error, a server's string) as one line: every control character escaped.
    static func line(_ value: Any) -> String {
        TerminalText.escaped(String(describing: value))
    }

    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return JSONText.escapingInvisibles(String(decoding: try encoder.encode(value), as: UTF8.self)) + "\n"
    }
}
#endif
