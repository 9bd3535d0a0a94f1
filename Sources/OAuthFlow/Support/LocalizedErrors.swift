import Foundation

// Every error OAuthFlow throws gives its sentence as `localizedDescription` too, so a host or a library that shows
// `error.localizedDescription` (the MCP SDK's transport, a SwiftUI alert) shows what went wrong, not
// "The operation could not be completed". The sentence is the error's `description`: it never holds a secret.
// `AuthorizationServerError` is left out: its `errorDescription` is the server's own `error_description` member.

extension FlowError: LocalizedError {
    public var errorDescription: String? { description }
}

extension ClientSettingsError: LocalizedError {
    public var errorDescription: String? { description }
}

extension SessionKeyringError: LocalizedError {
    public var errorDescription: String? { description }
}

extension ProviderError: LocalizedError {
    public var errorDescription: String? { description }
}

extension DiscoveryError: LocalizedError {
    public var errorDescription: String? { description }
}

extension ProtectedResource.Denial: LocalizedError {
    public var errorDescription: String? { description }
}

extension TokenStoreError: LocalizedError {
    public var errorDescription: String? { description }
}

extension SessionError: LocalizedError {
    public var errorDescription: String? { description }
}

extension TransportError: LocalizedError {
    public var errorDescription: String? { description }
}

extension IDTokenError: LocalizedError {
    public var errorDescription: String? { description }
}
