extension ProviderDescriptor {
    /// The authorization request.
    package struct Authorization: Sendable, Hashable, Codable {
        package var responseType: String = "code"
        package var responseMode: ResponseMode = .query
        package var extraParams: [String: String] = [:]
        package var pushed: Pushed = .ifSupported
        /// A signature the callback carries, checked with the client secret before the code is exchanged.
        package var callbackSignature: CallbackSignature?
        /// The `type`s of rich authorization request details the provider documents (RFC 9396 §2); nil declares none.
        package var detailsTypes: [String]?
        /// When the parameters go in a signed request object (RFC 9101).
        package var requestObject: RequestObject = .never
        /// The algorithms a request object may be signed with; nil takes every one the client's key can sign.
        package var requestObjectAlgs: [String]?
        /// The algorithms a JWT-secured response (JARM) may be signed with.
        package var responseAlgs: [String] = ["RS256", "PS256", "ES256"]
        /// The authentication context classes every browser sign-in asks for (OpenID Connect `acr_values`), checked in the ID token.
        package var acrValues: [String]?
        /// The most seconds since the user authenticated that a browser sign-in accepts (`max_age`), checked in the ID token.
        package var maxAge: Int?

        package init() {}
    }
}

// The schema's `authorization` keys: their shapes, defaults and reference sentences.
extension DescriptorSchema {
    static let authorizationFields: [SectionKey<ProviderDescriptor.Authorization>] = [
        SectionKey(
            \.responseType, { $0.responseType = $1 }, "response_type", .string(), default: ProviderDescriptor.Authorization().responseType,
            "The OAuth response type. Only `code` is acceptable (RFC 9700); resolving a provider with another fails (`unsupported_policy`)."),
        SectionKey(
            \.responseMode, { $0.responseMode = $1 }, "response_mode", default: ProviderDescriptor.Authorization().responseMode,
            "How the server returns the authorization response. `jwt`, `query.jwt` and `form_post.jwt` (JARM) have it sign the response as a JWT, which the engine verifies with the provider's JWKS (`response_algs`, `iss`, `aud`, `exp`) before it reads `code` and `state` from it; an encrypted response (JWE) is refused."
        ),
        SectionKey(
            \.extraParams, { $0.extraParams = $1 }, "extra_params", .map(.string()), default: shown(ProviderDescriptor.Authorization().extraParams),
            "Fixed parameters added to every authorization request (Auth0 `audience`). Reserved parameters are not allowed."),
        SectionKey(
            \.pushed, { $0.pushed = $1 }, "pushed", default: ProviderDescriptor.Authorization().pushed,
            "Pushed authorization requests (RFC 9126): every parameter goes to the provider in an authenticated POST and the browser gets only `client_id` and `request_uri`. `if_supported` pushes when the provider has the endpoint (`endpoints.pushed_authorization` or discovery); `always` fails without one; `never` does not push unless discovery says `require_pushed_authorization_requests: true`."
        ),
        SectionKey(
            \.requestObject, { $0.requestObject = $1 }, "request_object", default: ProviderDescriptor.Authorization().requestObject,
            "Signed request objects (RFC 9101): every authorization parameter goes in a JWT the client signs with its private key (`typ: oauth-authz-req+jwt`, `aud` the issuer), sent as `request` in the pushed request or the URL. `if_supported` signs when discovery lists the key's algorithm in `request_object_signing_alg_values_supported`; `always` fails without a private key; `never` does not sign unless discovery says `require_signed_request_object: true`."
        ),
        SectionKey(
            \.requestObjectAlgs, { $0.requestObjectAlgs = $1 }, "request_object_algs", .list(.choice(among: JWSAlgorithm.requestObject)),
            "The algorithms the provider takes for request objects; absent takes all four, and the client's key decides (an Ed25519 key signs `EdDSA`)."
        ),
        SectionKey(
            \.responseAlgs, { $0.responseAlgs = $1 }, "response_algs", .list(.choice(among: JWSAlgorithm.publicKey)),
            default: shown(ProviderDescriptor.Authorization().responseAlgs),
            "The algorithms a JWT-secured response (`response_mode: jwt`, JARM) may be signed with, verified with the provider's JWKS; `none` and HMAC are never accepted."
        ),
        SectionKey(
            \.callbackSignature, { $0.callbackSignature = $1 }, "callback_signature",
            "A signature the provider adds to the callback with the client secret (Shopify's `hmac`); a callback without it, or with a wrong one, is refused before the code is exchanged."
        ),
        SectionKey(
            \.detailsTypes, { $0.detailsTypes = $1 }, "details_types", .list(.string()),
            "The `type`s of rich authorization request details (RFC 9396) the provider documents (`payment_initiation`, `account_information`): a sign-in or service token request asking for another type is refused before anything is sent. Left out, discovery's `authorization_details_types_supported` decides when the provider publishes it, and otherwise any type is sent."
        ),
        SectionKey(
            \.acrValues, { $0.acrValues = $1 }, "acr_values", .list(.string()),
            "The authentication context classes every sign-in through the browser asks for (OpenID Connect Core §3.1.2.1 `acr_values`, in order of preference), each one word: the ID token's `acr` must be one of them, or the sign-in is refused. A host or an API's step-up that asks its own (`ClientConfiguration.acrValues`, RFC 9470) can only narrow them: those of its classes listed here are asked, and one naming none of them is refused; a device or platform sign-in, which cannot ask them, is refused. Needs `protocol: oidc`; written in `extra_params` or `scopes.offline.params` instead they would be sent and never checked, which resolving refuses."
        ),
        SectionKey(
            \.maxAge, { $0.maxAge = $1 }, "max_age", .integer(0...2_147_483_647),
            "The most seconds since the user last authenticated that a sign-in through the browser accepts (OpenID Connect `max_age`; 0 asks for a fresh login): the ID token's `auth_time` must be that recent, or the sign-in is refused. A host may ask a shorter one (`ClientConfiguration.maximumAuthenticationAge`, or a step-up), never a longer one: the shorter of the two is asked. Needs `protocol: oidc`, and, like `acr_values`, is refused as a fixed parameter and refuses device and platform sign-ins."
        ),
    ]
}

extension ProviderDescriptor {
    /// How the authorization response comes back (`authorization.response_mode`).
    public enum ResponseMode: String, Sendable, Hashable, Codable, CaseIterable {
        case query
        case formPost = "form_post"
        case fragment
        /// JARM: the response as a JWT signed by the server, in the query for the code flow (`query.jwt`).
        case jwt
        /// JARM: the signed response JWT in the redirect's query.
        case queryJWT = "query.jwt"
        /// JARM: the signed response JWT in a cross-site POST body.
        case formPostJWT = "form_post.jwt"
    }

    /// When the authorization request is pushed (RFC 9126).
    public enum Pushed: String, Sendable, Hashable, Codable, CaseIterable {
        /// Always: a provider without a pushed authorization request endpoint cannot sign in.
        case always
        /// When the provider has the endpoint (in the descriptor or its discovery document).
        case ifSupported = "if_supported"
        /// Never, unless discovery says `require_pushed_authorization_requests: true`.
        case never
    }
}

extension ProviderDescriptor.Authorization: DescriptorSection {
    package static var keys: [SectionKey<Self>] { DescriptorSchema.authorizationFields }
}
