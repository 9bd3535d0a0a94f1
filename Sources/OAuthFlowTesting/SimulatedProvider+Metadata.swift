import Foundation
import OAuthFlow

extension SimulatedProvider {
    /// The discovery document (OpenID Connect Discovery 1.0 §3), also served as RFC 8414 metadata.
    func metadata() -> [String: JSONValue] {
        func strings(_ values: [String]) -> JSONValue { .array(values.map { .string($0) }) }
        let authMethods = strings(["none", "client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt"])
        var document: [String: JSONValue] = [
            "issuer": .string(issuer.absoluteString),
            "authorization_endpoint": .string(url(.authorization).absoluteString),
            "token_endpoint": .string(url(.token).absoluteString),
            "userinfo_endpoint": .string(url(.userinfo).absoluteString),
            "jwks_uri": .string(url(.jwks).absoluteString),
            "revocation_endpoint": .string(url(.revocation).absoluteString),
            "introspection_endpoint": .string(url(.introspection).absoluteString),
            "device_authorization_endpoint": .string(url(.deviceAuthorization).absoluteString),
            "pushed_authorization_request_endpoint": .string(url(.pushedAuthorization).absoluteString),
            "require_pushed_authorization_requests": .bool(settings.requiresPushedAuthorization),
            "response_types_supported": strings(["code"]),
            "response_modes_supported": strings(["query", "form_post", "jwt", "query.jwt", "form_post.jwt"]),
            "authorization_signing_alg_values_supported": strings([settings.signingAlgorithm.rawValue]),
            "request_parameter_supported": .bool(true),
            "request_object_signing_alg_values_supported": strings(["RS256", "PS256", "ES256", "EdDSA"]),
            "require_signed_request_object": .bool(settings.requiresSignedRequestObject),
            "grant_types_supported": strings(GrantType.simulated.map(\.rawValue)),
            "subject_types_supported": strings(["public"]),
            "id_token_signing_alg_values_supported": strings([settings.signingAlgorithm.rawValue]),
            "token_endpoint_auth_methods_supported": authMethods,
            "revocation_endpoint_auth_methods_supported": authMethods,
            "introspection_endpoint_auth_methods_supported": authMethods,
            "token_endpoint_auth_signing_alg_values_supported": strings(["HS256", "RS256", "PS256", "ES256", "EdDSA"]),
            "code_challenge_methods_supported": strings(["S256"]),
            "scopes_supported": strings(["openid", "profile", "email", "offline_access"]),
            "claims_supported": strings(["sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "sid", "name", "email", "email_verified"]),
            "authorization_response_iss_parameter_supported": .bool(true),
            "backchannel_logout_supported": .bool(true),
            "backchannel_logout_session_supported": .bool(true),
        ]
        if let types = settings.authorizationDetailsTypes { document["authorization_details_types_supported"] = strings(types) }
        if !settings.acrValuesSupported.isEmpty { document["acr_values_supported"] = strings(settings.acrValuesSupported) }
        if settings.offersDPoP || settings.requiresDPoP {
            document["dpop_signing_alg_values_supported"] = strings(SimulatedProvider.proofAlgorithms)
        }
        addMutualTLSMetadata(to: &document)
        for (name, value) in settings.metadataOverrides { document[name] = value == .null ? nil : value }
        return document
    }

    /// The published key set (RFC 7517 §5): the current key and those not yet retired, without `kid`s unless
    /// ``Settings/publishesKeyIDs``.
    func keySet() -> [String: JSONValue] {
        let named = settings.publishesKeyIDs
        return ["keys": .array(keys.map { key in .object(key.publicJWK.filter { named || $0.key != "kid" }.mapValues { .string($0) }) })]
    }

    /// Signs `claims` with the current key, naming it in the header when ``Settings/publishesKeyIDs``.
    func signWithCurrentKey(_ claims: [String: JSONValue], type: String? = nil) async throws -> String {
        try await keys[0].sign(claims, type: type, namingKey: settings.publishesKeyIDs)
    }

    /// Makes a new signing key current: tokens are signed with it from now on.
    ///
    /// - Parameter retiringPrevious: Drop every earlier key from the key set too, so that tokens they signed no
    ///   longer verify; by default they stay published, as a provider rotating carefully keeps them.
    /// - Returns: The new key's `kid`.
    @discardableResult
    public func rotateKeys(retiringPrevious: Bool = false) throws -> String {
        let key = try SimulatedSigningKey.generate(settings.signingAlgorithm)
        keys = retiringPrevious ? [key] : [key] + keys
        return key.kid
    }

    /// The `kid` tokens are signed with now.
    public var currentKeyID: String { keys[0].kid }
}

extension GrantType {
    /// The grants a simulated provider takes.
    static let simulated: [GrantType] = [.authorizationCode, .refreshToken, .deviceCode, .clientCredentials]
}
