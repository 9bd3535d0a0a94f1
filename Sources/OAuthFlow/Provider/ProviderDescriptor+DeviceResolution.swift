import Foundation

extension ProviderDescriptor.Device {
    /// The polling interval and the names `verification_uri` goes by; the request's parameters are resolved with the
    /// other request parameters.
    func resolved() -> Provider.Policy.DevicePolicy {
        .init(interval: interval, verificationURIAliases: verificationURIAliases)
    }
}

extension Provider.Policy {
    /// RFC 8628: the polling interval when the server states none, and other names for `verification_uri`.
    public struct DevicePolicy: Sendable, Hashable {
        public var interval: Int
        package var verificationURIAliases: [String]
        /// The name the device authorization request gives its scopes (`device.scope_parameter`).
        package var scopeParameter = "scope"
        /// Fixed parameters of the device authorization request (`device.extra_params`).
        public var parameters: [String: String] = [:]
        /// The `grant_type` of a poll (`device.grant_type`).
        package var grantType = GrantType.deviceCode.rawValue
        /// What a poll sends besides `grant_type` and client authentication (`device.poll_params`).
        package var pollParameters: [String: ProviderDescriptor.Device.PollSource] = ["device_code": .deviceCode]

        public init(interval: Int, verificationURIAliases: [String]) {
            self.interval = interval
            self.verificationURIAliases = verificationURIAliases
        }
    }
}
