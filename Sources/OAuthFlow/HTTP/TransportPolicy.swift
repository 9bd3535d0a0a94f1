import Foundation

/// Where OAuthFlow sends credentials and fetches what it trusts.
public enum TransportPolicy {
    /// Credentials travel only over https, or plain http to this machine (RFC 9700 §2.6, RFC 8252 §8.3).
    ///
    /// - Throws: ``FlowError`` `insecureEndpoint` for any other URL.
    public static func requireSecure(_ url: URL) throws {
        let scheme = url.scheme?.lowercased()
        guard scheme == "https" || (scheme == "http" && Loopback.isLoopbackHost(url.host ?? "")) else {
            throw FlowError(.insecureEndpoint, "refusing to send credentials to \(url.scheme ?? "?")://\(url.host ?? "?"): only https, or http to a loopback host")
        }
    }
}

extension HTTPTransport {
    /// GETs a JSON document from a URL that passes ``TransportPolicy/requireSecure(_:)``.
    ///
    /// - Returns: The decoded document, or nil when the answer is not 200 with that JSON; and the response.
    /// - Throws: ``FlowError`` for an insecure URL, ``TransportError`` when there is no answer.
    func fetchJSON<Document: Decodable>(_ url: URL, as type: Document.Type) async throws -> (document: Document?, response: HTTPResponse) {
        try TransportPolicy.requireSecure(url)
        let response = try await send(HTTPRequest(method: "GET", url: url, headers: ["Accept": "application/json"]))
        guard response.status == 200 else { return (nil, response) }
        return (try? JSONDecoder().decode(Document.self, from: response.body), response)
    }
}
