import Foundation

/// The latest `DPoP-Nonce` each server gave (RFC 9449 §8, §9), by origin: the next proof for that server carries it.
///
/// Shared by every client of a process by default (``shared``); bounded, and holds only values that are valid
/// nonces (printable ASCII without `"` or `\`, at most 512 characters).
public final class DPoPNonces: Sendable {
    /// The process's nonces.
    public static let shared = DPoPNonces()

    private let state = NonceState()
    /// How many servers' nonces are kept; past that the oldest is forgotten.
    static let capacity = 256

    public init() {}

    /// The nonce to put in the next proof for `url`'s server.
    public func nonce(for url: URL) -> String? { state.get(Self.origin(url)) }

    /// Keeps the `DPoP-Nonce` a response from `url` carries, if any; returns it.
    @discardableResult
    func remember(_ response: HTTPResponse, from url: URL) -> String? {
        guard let value = response.header("dpop-nonce"), Self.isValid(value) else { return nil }
        state.set(value, for: Self.origin(url))
        return value
    }

    /// RFC 9449 §8.1: `nonce = 1*NQCHAR`, with a bound of our own.
    static func isValid(_ value: String) -> Bool {
        !value.isEmpty && value.utf8.count <= 512 && value.utf8.allSatisfy { $0 == 0x21 || (0x23...0x5B).contains($0) || (0x5D...0x7E).contains($0) }
    }

    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port.map(String.init) ?? "")"
    }

    private final class NonceState: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [String: String] = [:]
        private var order: [String] = []

        func get(_ origin: String) -> String? { lock.withLock { values[origin] } }

        func set(_ value: String, for origin: String) {
            lock.withLock {
                if values.updateValue(value, forKey: origin) == nil {
                    order.append(origin)
                    if order.count > DPoPNonces.capacity { values[order.removeFirst()] = nil }
                }
            }
        }
    }
}

/// Sending a request with a DPoP proof: the proof made with the server's latest nonce, and one retry when
/// the server demands a new one (RFC 9449 §8 for authorization servers, §9 for resource servers).
enum DPoPSending {
    /// Sends `request` with a fresh proof (new `jti`) on each attempt; at most two attempts.
    ///
    /// - Throws: ``FlowError`` `dpop` when the server demands a nonce again after the retry, or demands one without giving it.
    static func send(
        _ request: HTTPRequest, key: DPoPKey, accessToken: Secret?, nonces: DPoPNonces, transport: any HTTPTransport, clock: any DateClock,
        arrival: (@Sendable (HTTPResponse) -> Void)? = nil
    ) async throws -> HTTPResponse {
        var used = nonces.nonce(for: request.url)
        for attempt in 1...2 {
            var signed = request
            signed.headers["DPoP"] = try await key.proof(
                method: request.method, url: request.url, accessToken: accessToken, nonce: used, now: clock.now())
            let response: HTTPResponse
            if let arrival {
                response = try await transport.send(signed, arrival: arrival)
            } else {
                response = try await transport.send(signed)
            }
            let given = nonces.remember(response, from: request.url)
            guard demandsNonce(response) else { return response }
            let server = request.url.host ?? "the server"
            guard let given, given != used else {
                throw FlowError(.dpop, "\(server) demanded a DPoP nonce (`use_dpop_nonce`) without giving a new one in `DPoP-Nonce`")
            }
            if attempt == 2 {
                throw FlowError(
                    .dpop, "\(server) demanded a new DPoP nonce again after one retry with the nonce it gave; OAuthFlow retries once, so it gave up")
            }
            used = given
        }
        throw FlowError(.dpop, "unreachable")
    }

    /// Whether the answer is an authorization server's 400 or a resource server's 401 `use_dpop_nonce`.
    static func demandsNonce(_ response: HTTPResponse) -> Bool {
        switch response.status {
        case 400:
            let fields = try? TokenResponseParser.fields(of: response, format: .auto)
            return fields?["error"]?.stringValue == "use_dpop_nonce"
        case 401:
            guard let challenge = response.header("www-authenticate") else { return false }
            return challenge.range(of: #"error\s*=\s*"?use_dpop_nonce"#, options: [.regularExpression, .caseInsensitive]) != nil
        default:
            return false
        }
    }
}

extension TokenSet {
    /// Sends `request` to a protected resource with this set's access token: `Authorization: DPoP` and a proof
    /// (with `ath`) when the tokens are DPoP-bound (RFC 9449 §7), `Authorization: Bearer` otherwise (RFC 6750).
    ///
    /// A resource server that answers `use_dpop_nonce` gets one retry with the nonce it gave. Redirects are never followed.
    /// - Throws: ``FlowError`` `insecureEndpoint` for plain http to a host that is not loopback; `dpop` as above.
    public func send(
        _ request: HTTPRequest, transport: any HTTPTransport = DefaultHTTPTransport(), nonces: DPoPNonces = .shared,
        clock: any DateClock = SystemDateClock()
    ) async throws -> HTTPResponse {
        try FlowError.requireSecure(request.url)
        var authorized = request
        guard let proofKey else {
            authorized.headers["Authorization"] = "Bearer \(accessToken.value)"
            return try await transport.send(authorized)
        }
        authorized.headers["Authorization"] = "DPoP \(accessToken.value)"
        return try await DPoPSending.send(authorized, key: proofKey, accessToken: accessToken, nonces: nonces, transport: transport, clock: clock)
    }
}
