import Foundation

extension ProviderDescriptor.Authorization {
    /// Refuses a response type other than `code` (RFC 9700 §2.1.2).
    func check(_ refusals: inout PolicyRefusals) {
        if responseType != "code" {
            refusals.refuse(["authorization", "response_type"], "is `\(responseType)`; OAuthFlow uses only `code` (RFC 9700 §2.1.2)")
        }
        if let types = detailsTypes {
            if types.isEmpty {
                refusals.refuse(
                    ["authorization", "details_types"], "is empty, which refuses every authorization detail; leave it out to declare no types")
            }
            var seen: Set<String> = []
            for (index, type) in types.enumerated() where !seen.insert(type).inserted || type.isEmpty || type.contains(where: \.isWhitespace) {
                refusals.refuse(
                    ["authorization", "details_types"], item: String(index), "lists `\(type)`, which is empty, holds spaces or is listed twice")
            }
        }
    }

    /// The authentication every sign-in asks for and checks in the ID token (`acr_values`, `max_age`), typed.
    struct Authentication {
        var acrValues: [String]
        var maximumAge: Int?

        func apply(to policy: inout Provider.Policy) {
            policy.acrValues = acrValues
            policy.maximumAuthenticationAge = maximumAge
        }
    }

    /// `acr_values` and `max_age`, each class one word and listed once. Both are checked in the ID token, so only an
    /// OpenID Connect provider may ask them; and no fixed parameters (`extra_params`, the offline ones) may carry them,
    /// where they would be sent unchecked.
    func authentication(protocol: ProviderProtocol, offlineParameters: [String: String], _ refusals: inout PolicyRefusals) -> Authentication {
        // Looked through only when either map holds anything (most hold nothing): a list of both was made every time.
        if !extraParams.isEmpty || !offlineParameters.isEmpty {
            for (setting, parameters) in [(["authorization", "extra_params"], extraParams), (["scopes", "offline", "params"], offlineParameters)] {
                for name in ["acr_values", "max_age"] where parameters[name] != nil {
                    refusals.refuse(
                        setting, item: name,
                        "sets `\(name)`, which would be sent and never checked in the ID token: write `authorization.\(name)` instead")
                }
            }
        }
        if let classes = acrValues {
            if classes.isEmpty {
                refusals.refuse(["authorization", "acr_values"], "is empty, which asks for nothing; leave it out to ask for no class")
            }
            var seen: Set<String> = []
            for (index, value) in classes.enumerated() where !seen.insert(value).inserted || value.isEmpty || value.contains(where: \.isWhitespace) {
                refusals.refuse(
                    ["authorization", "acr_values"], item: String(index), "lists `\(value)`, which is empty, holds spaces or is listed twice")
            }
        }
        if `protocol` != .oidc {
            for (key, asked) in [("acr_values", acrValues != nil), ("max_age", maxAge != nil)] where asked {
                refusals.refuse(
                    ["authorization", key], "is checked in the ID token, which only an OpenID Connect provider returns: it needs `protocol: oidc`")
            }
        }
        return Authentication(acrValues: acrValues ?? [], maximumAge: maxAge)
    }

    /// The request object (RFC 9101) and JWT-secured response (JARM) settings, typed.
    struct SignedMessages {
        var requestObject: ProviderDescriptor.RequestObject
        var requestObjectAlgorithms: [JWSAlgorithm]
        var responseAlgorithms: [JWSAlgorithm]

        func apply(to policy: inout Provider.Policy) {
            policy.requestObject = requestObject
            policy.requestObjectAlgorithms = requestObjectAlgorithms
            policy.responseAlgorithms = responseAlgorithms
        }
    }

    /// The signed-message settings, each algorithm OAuthFlow cannot sign or verify with refused: request objects are
    /// signed with the client's private key (never HMAC), responses verified with the provider's public keys (never
    /// `none`, never HMAC), and an empty list would allow nothing.
    func securedAuthorization(_ refusals: inout PolicyRefusals) -> SignedMessages {
        // Without `request_object_algs`, every algorithm OAuthFlow signs request objects with, which it accepts as they are.
        let signing =
            requestObjectAlgs.map { names in
                refusals.algorithms(names, ["authorization", "request_object_algs"], accepted: JWSAlgorithm.requestObject) {
                    "lists `\($0)`; OAuthFlow signs request objects with \(JWSAlgorithm.listed(JWSAlgorithm.requestObject))"
                }
            } ?? JWSAlgorithm.requestObject
        if requestObjectAlgs?.isEmpty == true {
            refusals.refuse(["authorization", "request_object_algs"], "is empty: no request object could be signed")
        }
        let verifying = refusals.algorithms(responseAlgs, ["authorization", "response_algs"], accepted: JWSAlgorithm.publicKey) {
            "lists `\($0)`; a JWT-secured response is verified with the provider's public keys: \(JWSAlgorithm.listed(JWSAlgorithm.publicKey))"
        }
        if responseAlgs.isEmpty {
            refusals.refuse(["authorization", "response_algs"], "is empty: no JWT-secured response could be verified")
        }
        return SignedMessages(requestObject: requestObject, requestObjectAlgorithms: signing, responseAlgorithms: verifying)
    }
}
