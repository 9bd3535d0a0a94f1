import Foundation

/// Where OAuthFlow sends credentials and fetches what it trusts.
package enum TransportPolicy {
    /// Whether credentials may travel to `url`: https, or plain http to this machine (RFC 9700 §2.6,
    /// RFC 8252 §8.3). Each layer throws its own error for a refusal, with ``refusal(_:)`` as its message.
    public static func isSecure(_ url: URL) -> Bool {
        let scheme = url.scheme?.lowercased()
        return scheme == "https" || (scheme == "http" && Loopback.isLoopbackHost(url.host ?? ""))
    }

    /// Why `url` is refused.
    public static func refusal(_ url: URL) -> String {
        "refusing to send credentials to \(url.scheme ?? "?")://\(url.host ?? "?"): only https, or http to a loopback host"
    }
}

extension HTTPTransport {
    /// GETs a JSON document. Callers check the URL with ``TransportPolicy/isSecure(_:)`` first, to throw
    /// their own error; an insecure one is refused here too.
    ///
    /// - Returns: The decoded document, or nil when the answer is not 200 with that JSON (read by ``ServerJSON``: not
    ///   UTF-8, or a member given twice, is no document); and the response.
    /// - Throws: ``TransportError`` for an insecure URL or when there is no answer.
    func fetchJSON<Document: Decodable>(_ url: URL, as type: Document.Type) async throws -> (document: Document?, response: TransportResponse) {
        guard TransportPolicy.isSecure(url) else { throw TransportError(.insecure, url: url, message: TransportPolicy.refusal(url)) }
        let response = try await send(TransportRequest(method: .get, url: url, headers: ["Accept": "application/json"]))
        guard response.status == 200 else { return (nil, response) }
        return (try? ServerJSON.decode(Document.self, from: response.body), response)
    }
}
