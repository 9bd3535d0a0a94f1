import Foundation

extension ProviderDescriptor.LogoutSettings {
    /// - Parameter endSession: Whether the descriptor names the provider's logout URL (`endpoints.end_session`).
    func resolved(endSession: Bool, _ refusals: inout PolicyRefusals) -> Provider.Policy.LogoutPolicy {
        let custom = style == .custom
        if custom, !endSession {
            refusals.refuse(["logout", "style"], "is `custom`, which needs the provider's logout URL in `endpoints.end_session`")
        }
        for reserved in extraParams.keys.sorted() where engineParameters.contains(reserved) {
            refusals.refuse(["logout", "extra_params"], item: reserved, "sets `\(reserved)`, which the engine sets on an end-session request")
        }
        let clientIDParameter = clientIDParameter ?? Self.standardClientIDParameter
        return .init(
            style: style, redirectParameter: redirectParameter ?? Self.standardRedirectParameter,
            clientIDParameter: clientIDParameter.isEmpty ? nil : clientIDParameter, sendsIDTokenHint: idTokenHint ?? !custom,
            returnsState: returnsState ?? !custom, parameters: extraParams,
            backChannel: .init(supported: backchannelLogoutSupported, sessionSupported: backchannelLogoutSessionSupported),
            frontChannel: .init(supported: frontchannelLogoutSupported, sessionSupported: frontchannelLogoutSessionSupported),
            logoutTokenMaxAge: TimeInterval(logoutTokenMaxAge))
    }
}
