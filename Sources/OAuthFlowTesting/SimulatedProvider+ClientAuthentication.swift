import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The parameters of a form-encoded POST body (RFC 6749 §3.2); a parameter given twice is refused (§3.1).
    static func form(of request: TransportRequest) throws -> [String: String] {
        let type = header("Content-Type", of: request)?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw OAuthRefusal.invalidRequest("the body must be application/x-www-form-urlencoded")
        }
        return try parameters(FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self)))
    }

    /// Parameters by name; a name given twice is refused (RFC 6749 §3.1), except the targets a request may repeat
    /// (``repeatable``), whose first value is kept here and every value by ``targets(of:)``.
    static func parameters(_ pairs: [(String, String)]) throws -> [String: String] {
        var values: [String: String] = [:]
        for (name, value) in pairs {
            guard values[name] == nil else {
                guard repeatable.contains(name) else { throw OAuthRefusal.invalidRequest("the parameter `\(name)` is given more than once") }
                continue
            }
            values[name] = value
        }
        return values
    }

    /// The parameters a request may give more than once: RFC 8707 §2 lets a client name several `resource`s, and
    /// RFC 8693 §2.1 several `audience`s.
    static let repeatable: Set<String> = ["resource", "audience"]

    /// The audiences a token request asks for: every `resource` (RFC 8707 §2), or else every `audience` when `audience`
    /// is given; empty when it names none.
    static func targets(of request: TransportRequest, audience: Bool = false) -> [String] {
        let pairs = FormEncoding.decode(String(decoding: request.body ?? Data(), as: UTF8.self))
        let resources = pairs.filter { $0.0 == "resource" }.map(\.1)
        guard resources.isEmpty, audience else { return resources }
        return pairs.filter { $0.0 == "audience" }.map(\.1)
    }

    /// A request header by name, case-insensitively.
    static func header(_ name: String, of request: TransportRequest) -> String? {
        request.headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// The client the request comes from, authenticated the one way it registered (RFC 6749 §2.3): a secret, no secret
    /// for a public client, or a client assertion (``authenticateAssertion(_:claimedID:at:)``).
    ///
    /// - Throws: `invalid_client` (401) for an unknown client, a wrong secret or assertion, or another method; `invalid_request`
    ///   for more than one method in one request.
    func authenticateClient(_ request: TransportRequest, _ form: [String: String]) throws -> SimulatedClient {
        if let assertion = form["client_assertion"] {
            guard form["client_secret"] == nil, Self.header("Authorization", of: request)?.lowercased().hasPrefix("basic ") != true else {
                throw OAuthRefusal.invalidRequest("the client authenticated with more than one method (RFC 6749 §2.3)")
            }
            guard form["client_assertion_type"] == Self.assertionType else {
                throw OAuthRefusal.invalidRequest("client_assertion_type is not \(Self.assertionType) (RFC 7523 §2.2)")
            }
            return try authenticateAssertion(assertion, claimedID: form["client_id"], at: request.url)
        }
        var usedBasic = false
        var claimedID = form["client_id"]
        var secret = form["client_secret"]
        if let authorization = Self.header("Authorization", of: request), authorization.lowercased().hasPrefix("basic ") {
            usedBasic = true
            guard secret == nil else {
                throw OAuthRefusal.invalidRequest("the client authenticated with more than one method (RFC 6749 §2.3)")
            }
            // RFC 6749 §2.3.1: id and secret are form-encoded, then joined with `:` and base64-encoded.
            guard let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
            else { throw OAuthRefusal.invalidClient("the Basic credentials are malformed", basic: true) }
            func unescape(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            let basicID = unescape(text[..<colon])
            if let claimedID, claimedID != basicID {
                throw OAuthRefusal.invalidRequest("the body's client_id is not the client that authenticated")
            }
            claimedID = basicID
            secret = unescape(text[text.index(after: colon)...])
        }
        guard let id = claimedID, let client = clients[id] else {
            throw OAuthRefusal.invalidClient("unknown client", basic: usedBasic)
        }
        if client.authentication == .tlsClientAuth || client.authentication == .selfSignedTLSClientAuth {
            return try authenticateCertificate(request, client: client, secret: secret)
        }
        let used: SimulatedClient.Authentication = usedBasic ? .clientSecretBasic : (secret != nil ? .clientSecretPost : .none)
        guard used == client.authentication else {
            throw OAuthRefusal.invalidClient(
                "the client authenticates with \(client.authentication.rawValue), not \(used.rawValue)", basic: usedBasic)
        }
        if used != .none {
            guard let expected = client.secret, let secret, ConstantTime.equals(expected, secret) else {
                throw OAuthRefusal.invalidClient("wrong client secret", basic: usedBasic)
            }
        }
        return client
    }
}
