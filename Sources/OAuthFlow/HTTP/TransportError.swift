import Foundation

/// A failure to get any HTTP response: connection refused, timeout, oversized body; ``code`` says
/// which, ``message`` says it in a sentence.
public struct TransportError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
    public typealias Code = ErrorCode<TransportError>

    /// What went wrong, for code to branch on (a timeout may be worth a retry, an oversized answer never).
    public let code: Code
    public let url: String
    public let message: String

    public init(_ code: Code = .failed, url: URL, message: String) {
        // The URL of a request never carries a secret in OAuthFlow (they go in bodies and headers),
        // but drop any query anyway so a log line cannot leak one.
        var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        components?.query = nil
        self.code = code
        self.url = components?.string ?? "<url>"
        self.message = message
    }

    /// The error's sentence, which `localizedDescription` gives too (hosts and libraries that show errors read it).
    public var errorDescription: String? { description }

    public var description: String { "request to \(url) failed: \(message)" }
}
