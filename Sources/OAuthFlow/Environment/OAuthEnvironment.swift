import Foundation
import Logging

/// What every object the library makes shares: how requests are sent, what time it is, where log lines go,
/// and the servers' DPoP nonces.
///
/// A host gives one environment to ``OAuth`` (or to ``OAuthClient``, ``ProtectedResource``, ``ServiceTokens``
/// and the registry when it uses them alone), and every object made from it carries it on: a
/// ``TokenManager`` made for a client sends and timestamps with that client's environment, a web sign-in's
/// sessions refresh through the web sign-in's.
///
/// ```swift
/// var environment = OAuthEnvironment()
/// environment.logger = Logger(label: "myapp.oauth")
/// let oauth = OAuth(OAuth.Configuration(store: InMemoryTokenStore(), environment: environment))
/// ```
///
/// Nothing here reads the process environment or the user's files.
public struct OAuthEnvironment: Sendable {
    /// Sends every request: the platform's transport (``AsyncHTTPClientTransport`` on Linux, `URLSessionTransport`
    /// on Apple platforms) unless the host hands in its own (on Linux, an ``AsyncHTTPClientTransport`` over the
    /// host's `HTTPClient`, or a test's transport).
    public var transport: any HTTPTransport
    /// The wall clock: issue and expiry times, refresh windows, caches, and the device flow's wait between polls.
    public var clock: any DateClock
    /// Receives debug and trace lines, at info or below; secrets are never logged. Discards everything by default.
    public var logger: Logger
    /// The latest `DPoP-Nonce` of each server (RFC 9449 §8): the process's by default.
    public var nonces: DPoPNonces

    /// - Parameters:
    ///   - transport: Sends every request.
    ///   - clock: The wall clock.
    ///   - logger: Receives the library's log lines; a logger that discards them by default.
    ///   - nonces: Where servers' DPoP nonces are kept.
    public init(
        transport: any HTTPTransport = DefaultHTTPTransport(), clock: any DateClock = SystemDateClock(),
        logger: Logger = .disabled, nonces: DPoPNonces = .shared
    ) {
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.nonces = nonces
    }
}

extension Logger {
    /// A logger that discards every line: the library's default, since a library never bootstraps logging.
    @usableFromInline package static var disabled: Logger { Logger(label: "oauthflow", factory: { _ in SwiftLogNoOpLogHandler() }) }
}
