extension ProviderDescriptor {
    /// Names the engine sets on some request itself: an authorization request's, a token request's, a pushed
    /// request's or a revocation's. None may name the client.
    static let engineSetParameters: Set<String> = Set(DescriptorSchema.reservedParameters).union(TokenRequest.engineParameters)
        .union(["request_uri", "response_mode", "dpop_jkt", "token", "token_type_hint", "iss"])

    /// The request-parameter settings of every section, each refusal at its setting.
    func requestParameterPolicy(_ refusals: inout PolicyRefusals) -> RequestParameterPolicy {
        let scopeParameter = scopes.checkedParameter(&refusals)
        let clientIDParameter = clientAuth.clientIDName(
            fixed: authorization.extraParams.keys.sorted() + tokenRequest.extraParams.keys.sorted(), &refusals)
        let refresh = tokenRequest.refreshCallbackParameters(&refusals)
        let device = device.resolved(clientIDParameter: clientIDParameter, &refusals)
        redirect.loopback.checkLocalhost(&refusals)
        return .init(scopeParameter: scopeParameter, clientIDParameter: clientIDParameter, refreshCallbackParameters: refresh, device: device)
    }
}

extension ProviderDescriptor.Scopes {
    /// `parameter`, refused as `never` while scopes are listed: they would never be sent.
    func checkedParameter(_ refusals: inout PolicyRefusals) -> ProviderDescriptor.ScopeParameter {
        if parameter == .never, !self.default.isEmpty || !offline.scopes.isEmpty {
            let listed = self.default.isEmpty ? "`scopes.offline.scopes`" : "`scopes.default`"
            refusals.refuse(
                ["scopes", "parameter"],
                "is `never`, so no request carries a scope, but \(listed) lists some; leave the list empty (the provider fixes the scopes when the app is registered)"
            )
        }
        return parameter
    }
}

extension ProviderDescriptor.ClientAuth {
    /// `client_id_parameter` (or `client_id`), refused when empty, when it names a parameter the engine sets, or
    /// when a fixed parameter (`fixed`) sets it too.
    func clientIDName(fixed: [String], _ refusals: inout PolicyRefusals) -> String {
        guard let name = clientIDParameter, name != Self.standardClientIDParameter else { return Self.standardClientIDParameter }
        let setting = ["client_auth", "client_id_parameter"]
        if name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }) {
            refusals.refuse(setting, "must be a parameter name (letters, digits, `_`, `.`, `-`): the client is always named")
        } else if ProviderDescriptor.engineSetParameters.contains(name) {
            refusals.refuse(setting, "is `\(name)`, which the engine sets itself on some request")
        } else if fixed.contains(name) {
            refusals.refuse(setting, "is `\(name)`, which an `extra_params` map sets as well; leave it out there")
        }
        return name
    }
}

extension ProviderDescriptor.TokenRequest {
    /// `callback_params_on_refresh`, each parameter the engine sets (or checks) refused.
    func refreshCallbackParameters(_ refusals: inout PolicyRefusals) -> [String] {
        for (index, name) in callbackParamsOnRefresh.enumerated() where Self.engineParameters.contains(name) || name == "iss" {
            refusals.refuse(
                ["token_request", "callback_params_on_refresh"], item: String(index),
                "keeps `\(name)`, which the engine sets (or checks) itself; a refresh never repeats it")
        }
        return callbackParamsOnRefresh
    }
}

extension ProviderDescriptor.Device {
    /// The device grant's request and poll shape, each name the engine sets refused.
    ///
    /// - Parameter clientIDParameter: The name the client goes by, which client authentication sets.
    func resolved(clientIDParameter: String, _ refusals: inout PolicyRefusals) -> Provider.Policy.DevicePolicy {
        // Client authentication's parameters: set on both requests by the engine.
        let authentication = ["client_id", clientIDParameter, "client_secret", "client_assertion", "client_assertion_type"]
        // ASCII letters, digits, `_`, `.` and `-`, judged from the bytes (each is one byte, and a character of one).
        let validName = { (name: String) in
            !name.isEmpty
                && name.utf8.allSatisfy { byte in
                    switch byte {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                        UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "-"):
                        true
                    default: false
                    }
                }
        }
        if !validName(scopeParameter) || authentication.contains(scopeParameter) {
            refusals.refuse(["device", "scope_parameter"], "is `\(scopeParameter)`, which is not a parameter name the scopes can go by")
        }
        for name in extraParams.keys.sorted() where authentication.contains(name) || name == scopeParameter {
            refusals.refuse(["device", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a device authorization request")
        }
        if WhiteSpace.isBlank(grantType) {
            refusals.refuse(["device", "grant_type"], "is empty; leave it out for RFC 8628's `\(GrantType.deviceCode.rawValue)`")
        }
        for name in pollParams.keys.sorted() where authentication.contains(name) || name == "grant_type" || !validName(name) {
            refusals.refuse(["device", "poll_params"], item: name, "sets `\(name)`, which the engine sets on a poll")
        }
        if !pollParams.values.contains(.deviceCode) {
            refusals.refuse(["device", "poll_params"], "sends no `device_code`; a poll must carry the device code (RFC 8628 §3.4)")
        }
        var policy = Provider.Policy.DevicePolicy(interval: interval, verificationURIAliases: verificationURIAliases)
        policy.scopeParameter = scopeParameter
        policy.parameters = extraParams
        policy.grantType = grantType
        policy.pollParameters = pollParams
        return policy
    }
}

extension ProviderDescriptor.Loopback {
    /// Refuses `write_localhost` on another host than `localhost`.
    func checkLocalhost(_ refusals: inout PolicyRefusals) {
        if writeLocalhost, host.lowercased() != "localhost" {
            refusals.refuse(
                ["redirect", "loopback", "write_localhost"],
                "keeps the name `localhost` in the redirect URI, but `host` is `\(host)`; set `host: localhost`, or leave `write_localhost` out")
        }
    }
}
