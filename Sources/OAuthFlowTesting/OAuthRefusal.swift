import Foundation
import OAuthFlow

/// A request a simulated endpoint refuses, with the OAuth error the RFC names for it.
struct OAuthRefusal: Error {
    let status: Int
    let error: String
    let description: String
    /// A `WWW-Authenticate` challenge: `Basic` after a failed Basic authentication (RFC 6749 §5.2), `Bearer` or `DPoP`
    /// at a protected resource (RFC 6750 §3, RFC 9449 §7.1).
    var challenge: String?

    init(_ error: String, _ description: String, status: Int = 400, challenge: String? = nil) {
        self.status = status
        self.error = error
        self.description = description
        self.challenge = challenge
    }

    static func invalidRequest(_ description: String) -> OAuthRefusal { OAuthRefusal("invalid_request", description) }
    static func invalidGrant(_ description: String) -> OAuthRefusal { OAuthRefusal("invalid_grant", description) }
    static func invalidClient(_ description: String, basic: Bool) -> OAuthRefusal {
        OAuthRefusal("invalid_client", description, status: 401, challenge: basic ? "Basic realm=\"simulated\"" : nil)
    }
    static func invalidDPoPProof(_ description: String) -> OAuthRefusal { OAuthRefusal("invalid_dpop_proof", description) }

    /// The answer: a JSON error body, with the challenge and the current DPoP nonce when there are some.
    func response(dpopNonce: String?) -> TransportResponse {
        var response = SimulatedProvider.json(["error": .string(error), "error_description": .string(description)], status: status)
        if let challenge { response.headers["www-authenticate"] = challenge }
        if let dpopNonce, error == "use_dpop_nonce" || error == "invalid_dpop_proof" || challenge?.hasPrefix("DPoP") == true {
            response.headers["dpop-nonce"] = dpopNonce
        }
        return response
    }
}
