import Foundation

/// A grant as the provider's grant management API describes it (FAPI Grant Management for OAuth 2.0 §6.4): what the
/// client holds under one `grant_id`, whichever sign-ins added to it. ``OAuthClient/grant(of:)`` reads it.
public struct ManagedGrant: Sendable, Hashable {
    /// The `grant_id`.
    public let id: String
    /// Every scope granted, from each entry of the answer's `scopes` (its space-separated `scope`), in order, once each.
    public let scopes: [String]
    /// The resources scope entries name (their `resource`), once each.
    public let resources: [String]
    /// The claims granted (`claims`).
    public let claims: [String]
    /// The authorization details granted (RFC 9396, `authorization_details`).
    public let authorizationDetails: [AuthorizationDetail]
    /// The answer as it came, for members this type does not name.
    public let all: [String: JSONValue]

    /// Reads the API's answer about grant `id`.
    ///
    /// - Throws: ``FlowError`` `grantManagement` for members of the wrong shape: `scopes` not an array of objects with a
    ///   string `scope`, `claims` not an array of strings, `authorization_details` not an array of objects with a `type`.
    init(id: String, answer: [String: JSONValue]) throws {
        func refuse(_ what: String) -> FlowError {
            FlowError(.grantManagement, "the grant management API's answer about grant `\(TerminalText.escaped(id))` has \(what)")
        }
        var scopes: [String] = []
        var resources: [String] = []
        if let value = answer["scopes"], value != .null {
            guard case let .array(entries) = value else { throw refuse("`scopes` that is not an array") }
            for entry in entries {
                guard case let .object(members) = entry, let scope = members["scope"]?.stringValue else {
                    throw refuse("a `scopes` entry without a string `scope`")
                }
                for name in scope.split(separator: " ").map(String.init) where !scopes.contains(name) { scopes.append(name) }
                switch members["resource"] {
                case let .string(resource)?:
                    if !resources.contains(resource) { resources.append(resource) }
                case let .array(items)?:
                    for resource in items.compactMap(\.stringValue) where !resources.contains(resource) { resources.append(resource) }
                default:
                    break
                }
            }
        }
        var claims: [String] = []
        if let value = answer["claims"], value != .null {
            guard case let .array(items) = value, items.allSatisfy({ $0.stringValue != nil }) else {
                throw refuse("`claims` that is not an array of strings")
            }
            claims = items.compactMap(\.stringValue)
        }
        var details: [AuthorizationDetail] = []
        if let value = answer["authorization_details"], value != .null {
            do {
                details = try AuthorizationDetail.list(value, what: "the grant's `authorization_details`")
            } catch let error as FlowError {
                throw FlowError(.grantManagement, error.message)
            }
        }
        self.id = id
        self.scopes = scopes
        self.resources = resources
        self.claims = claims
        self.authorizationDetails = details
        self.all = answer
    }
}
