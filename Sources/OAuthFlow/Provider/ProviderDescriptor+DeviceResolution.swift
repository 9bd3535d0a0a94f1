import Foundation

extension ProviderDescriptor.Device {
    /// The device grant's request and poll shape, each name the engine sets refused.
    ///
    /// - Parameter clientIDParameter: The name the client goes by, which client authentication sets.
    func resolved(clientIDParameter: String, _ refusals: inout PolicyRefusals) -> Provider.Policy.DevicePolicy {
        // Client authentication's parameters: set on both requests by the engine.
        let authentication = { (name: String) in name == clientIDParameter || Self.authenticationParameters.contains(name) }
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
        if !validName(scopeParameter) || authentication(scopeParameter) {
            refusals.refuse(["device", "scope_parameter"], "is `\(scopeParameter)`, which is not a parameter name the scopes can go by")
        }
        // Each list of names is sorted, for refusals in a stable order, only when it holds one to refuse.
        let setByEngine = { (name: String) in authentication(name) || name == scopeParameter }
        if extraParams.keys.contains(where: setByEngine) {
            for name in extraParams.keys.sorted() where setByEngine(name) {
                refusals.refuse(["device", "extra_params"], item: name, "sets `\(name)`, which the engine sets on a device authorization request")
            }
        }
        if WhiteSpace.isBlank(grantType) {
            refusals.refuse(["device", "grant_type"], "is empty; leave it out for RFC 8628's `\(GrantType.deviceCode.rawValue)`")
        }
        let refusedInPoll = { (name: String) in authentication(name) || name == "grant_type" || !validName(name) }
        if pollParams.keys.contains(where: refusedInPoll) {
            for name in pollParams.keys.sorted() where refusedInPoll(name) {
                refusals.refuse(["device", "poll_params"], item: name, "sets `\(name)`, which the engine sets on a poll")
            }
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

    /// The parameters of client authentication other than the client's own name.
    private static let authenticationParameters = ["client_id", "client_secret", "client_assertion", "client_assertion_type"]
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
        package var pollParameters: [String: ProviderDescriptor.Device.PollSource] = ProviderDescriptor.Device.standardPollParams

        public init(interval: Int, verificationURIAliases: [String]) {
            self.interval = interval
            self.verificationURIAliases = verificationURIAliases
        }
    }
}
