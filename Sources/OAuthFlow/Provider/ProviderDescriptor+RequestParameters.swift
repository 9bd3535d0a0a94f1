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
