/// The settings that rename standard request parameters or leave them out (`scopes.parameter`,
/// `client_auth.client_id_parameter`, the `device` variants, `token_request.callback_params_on_refresh`,
/// `redirect.loopback.write_localhost`), each resolved by its section and applied to the policy together; the device
/// grant's shape, resolved with the name the client goes by, is the policy's `device`.
struct RequestParameterPolicy {
    var scopeParameter: ProviderDescriptor.ScopeParameter
    var clientIDParameter: String
    var refreshCallbackParameters: [String]
    var device: Provider.Policy.DevicePolicy

    func apply(to policy: inout Provider.Policy) {
        policy.scopes.parameter = scopeParameter
        policy.clientIDParameter = clientIDParameter
        policy.tokenRequest.refreshCallbackParameters = refreshCallbackParameters
    }
}
