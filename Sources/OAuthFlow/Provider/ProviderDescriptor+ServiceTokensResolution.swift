import Foundation

extension ProviderDescriptor.ServiceTokenSettings {
    func resolved() -> Provider.Policy.ServiceTokenPolicy {
        .init(target: target, scopeSuffix: scopeSuffix)
    }
}

extension Provider.Policy {
    /// How a client-credentials request names its API (``ProviderDescriptor/ServiceTokenTarget``), and the scope suffix for `scope`.
    public struct ServiceTokenPolicy: Sendable, Hashable {
        public var target: ProviderDescriptor.ServiceTokenTarget
        public var scopeSuffix: String
    }
}
