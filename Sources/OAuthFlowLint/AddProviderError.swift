import Foundation
import OAuthFlow

/// Why a drafted descriptor was not written (``OAuthFlow/OAuth/addProvider(issuer:id:options:directory:replacing:)``).
public struct AddProviderError: MessageError {
    public typealias Code = ErrorCode<AddProviderError>

    public let code: Code
    /// A sentence a person can act on.
    public let message: String
    /// The lint findings that stopped it, for the `not_clean` code.
    public let findings: [Diagnostic]

    init(_ code: Code, _ message: String, findings: [Diagnostic] = []) {
        self.code = code
        self.message = message
        self.findings = findings
    }

    /// The message, then one line per finding.
    public var description: String {
        ([message] + findings.map { "  \($0)" }).joined(separator: "\n")
    }
}

extension ErrorCode where Domain == AddProviderError {
    /// A file is already there, and replacing it was not asked for.
    public static let fileExists = Self("file_exists")
    /// The draft does not lint clean under `--strict` (an error or a warning).
    public static let notClean = Self("not_clean")
    /// The configuration names no directory to write to.
    public static let noDirectory = Self("no_directory")
    /// The file could not be written.
    public static let io = Self("io")
}
