import Foundation

/// A provider with its variables filled in: concrete URLs, ready for the engine.
public struct Provider: Sendable, Hashable {
    /// The descriptor this provider was resolved from.
    public let descriptor: ProviderDescriptor
    /// The variable values used, defaults included.
    public let variables: [String: String]
    public let issuer: URL?
    public let discoveryURL: URL?
    public let endpoints: Endpoints
    /// Which protected resources the granted scopes open.
    public let resources: ResourceMap

    public var id: String { descriptor.id }
    public var displayName: String { descriptor.displayName }

    /// Concrete endpoint URLs.
    public struct Endpoints: Sendable, Hashable {
        public var authorization: URL?
        public var token: URL?
        public var userinfo: URL?
        public var revocation: URL?
        public var introspection: URL?
        public var endSession: URL?
        public var deviceAuthorization: URL?
        public var jwks: URL?
    }

    init(descriptor: ProviderDescriptor, variables: [String: String], issuer: URL?, discoveryURL: URL?,
         endpoints: Endpoints, resources: ResourceMap) {
        self.descriptor = descriptor
        self.variables = variables
        self.issuer = issuer
        self.discoveryURL = discoveryURL
        self.endpoints = endpoints
        self.resources = resources
    }
}
