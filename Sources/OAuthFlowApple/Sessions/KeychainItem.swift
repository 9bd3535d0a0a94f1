import Foundation

/// One generic-password item: its primary key, less `kSecAttrSynchronizable` (the store's items never sync).
struct KeychainItem: Sendable, Hashable, CustomStringConvertible {
    var service: String
    var account: String
    var accessGroup: String?

    /// How errors name it: never a token, only the item's names.
    var description: String {
        "keychain item \(service) / \(account)" + (accessGroup.map { " in access group \($0)" } ?? "")
    }
}
