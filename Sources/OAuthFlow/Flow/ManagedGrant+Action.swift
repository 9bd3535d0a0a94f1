import Foundation

extension ManagedGrant {
    /// What a sign-in asks of the grant its tokens belong to (Grant Management for OAuth 2.0 §5.2, a FAPI specification):
    /// a new grant, or more (`merge`) or other (`replace`) rights added to one the client was given before, named by the
    /// `grant_id` an earlier token answer carried (``TokenSet/grantID``).
    ///
    /// Set on ``ClientConfiguration/grantManagement`` (or ``ClientSettings/grantManagement``); the authorization request
    /// then carries `grant_management_action`, and `grant_id` with `merge` and `replace`. A server that publishes
    /// `grant_management_action_required: true` is sent `create` when the host names no action.
    public enum Action: Sendable, Hashable, CustomStringConvertible {
        /// A new grant (§5.2: no `grant_id` is sent).
        case create
        /// The rights of this request added to the grant `grantID`.
        case merge(grantID: String)
        /// The grant `grantID`'s rights replaced by this request's.
        case replace(grantID: String)

        /// The action's name, as `grant_management_action` and `grant_management_actions_supported` spell it.
        public var name: String {
            switch self {
            case .create: return "create"
            case .merge: return "merge"
            case .replace: return "replace"
            }
        }

        /// The grant the action changes; nil for ``create``.
        public var grantID: String? {
            switch self {
            case .create: return nil
            case let .merge(grantID), let .replace(grantID): return grantID
            }
        }

        public var description: String { grantID.map { "\(name) grant \($0)" } ?? name }

        /// The action `client`'s authorization requests at `provider` carry: the client's own, or `create` when the server
        /// requires one (`grant_management_action_required`); nil for neither.
        ///
        /// - Throws: ``FlowError`` `grantManagement` when the server's metadata was read and does not list the action
        ///   (`grant_management_actions_supported`, absent when the server does no grant management).
        static func requested(by client: ClientConfiguration, of provider: Provider) throws -> ManagedGrant.Action? {
            let capabilities = provider.capabilities
            guard let action = client.grantManagement ?? (capabilities.requiresGrantManagementAction ? .create : nil) else { return nil }
            if provider.isDiscovered, !(capabilities.grantManagementActions ?? []).contains(action.name) {
                let listed = capabilities.grantManagementActions.map { "lists only \($0.map { "`\($0)`" }.joined(separator: ", "))" } ?? "lists none"
                throw FlowError(
                    .grantManagement,
                    "provider `\(provider.id)` does not take the grant management action `\(action.name)`: its metadata's grant_management_actions_supported \(listed)"
                )
            }
            return action
        }

        /// The authorization request parameters (§5.1).
        ///
        /// - Throws: ``FlowError`` `grantManagement` for a `grant_id` that is empty, longer than 512 bytes, or holds a
        ///   control character or a space.
        func parameters() throws -> [(String, String)] {
            guard let grantID else { return [("grant_management_action", name)] }
            try Self.check(grantID)
            return [("grant_management_action", name), ("grant_id", grantID)]
        }

        /// Refuses a `grant_id` no server issues and no URL path can carry as one segment.
        static func check(_ grantID: String) throws {
            let usable = !grantID.isEmpty && grantID.utf8.count <= 512 && grantID.unicodeScalars.allSatisfy { $0.value > 0x20 && $0.value != 0x7F }
            guard usable else {
                throw FlowError(
                    .grantManagement,
                    "the grant_id `\(TerminalText.escaped(String(grantID.prefix(60))))` is not one a server issues: it must be 1 to 512 bytes with no space or control character"
                )
            }
        }
    }
}
