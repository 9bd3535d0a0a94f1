extension ProviderDescriptor.TokenRequest {
    /// What the engine sets on a token request (RFC 6749 §4.1.3, §6; RFC 7636; RFC 7523; RFC 8693; RFC 9449):
    /// never a fixed or copied parameter.
    static let engineParameters: Set<String> = [
        "grant_type", "code", "redirect_uri", "code_verifier", "refresh_token", "client_id", "client_secret", "client_assertion",
        "client_assertion_type", "device_code", "scope", "resource", "audience", "subject_token", "actor_token", "assertion",
    ]

    func resolved(_ refusals: inout PolicyRefusals) -> Provider.Policy.TokenRequestShape {
        // Filtered before sorting, and sorted only when there are two: most maps set none of them, and sorting made a
        // new list every time, even of none.
        let reserved = extraParams.keys.filter(Self.engineParameters.contains)
        for name in reserved.count > 1 ? reserved.sorted() : reserved {
            refusals.refuse(["token_request", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a token request")
        }
        for (index, name) in callbackParams.enumerated() where Self.engineParameters.contains(name) || name == "iss" {
            refusals.refuse(["token_request", "callback_params"], item: String(index), "copies `\(name)`, which the engine sets (or checks) itself")
        }
        refusals.checkHeaders(headers, at: ["token_request", "headers"])
        return .init(encoding: bodyEncoding, headers: headers, parameters: extraParams, callbackParameters: callbackParams)
    }
}

extension Provider.Policy {
    /// How token requests are sent: the body's encoding and extra headers.
    public struct TokenRequestShape: Sendable, Hashable {
        public var encoding: ProviderDescriptor.BodyEncoding
        public var headers: [String: String]
        /// Fixed parameters added to every token request (`token_request.extra_params`).
        public var parameters: [String: String] = [:]
        /// Callback parameters copied into the code exchange (`token_request.callback_params`).
        public var callbackParameters: [String] = []
        /// Callback parameters kept with the session and sent on every refresh (`token_request.callback_params_on_refresh`).
        package var refreshCallbackParameters: [String] = []
    }
}
