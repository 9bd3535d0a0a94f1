import Foundation

/// The keychain as ``KeychainTokenStore`` uses it: generic-password items named by service, account and access group.
///
/// The one seam between the store's logic and the Security framework: `SecurityKeychainItems` makes these four
/// calls with `SecItem*` on Apple platforms; the tests run the store on Linux against an in-memory keychain that
/// answers as Apple documents (`errSecDuplicateItem` for an add whose service, account and access group exist,
/// `errSecItemNotFound`, `errSecInteractionNotAllowed` while the device is locked).
protocol KeychainItems: Sendable {
    /// The item's data, or nil when there is no such item.
    ///
    /// - Throws: ``KeychainStatus`` for any other answer.
    func read(_ item: KeychainItem) throws -> Data?
    /// The item's data and its `kSecAttrGeneric` (nil when it has none), or nil when there is no such item.
    ///
    /// - Throws: ``KeychainStatus`` for any other answer.
    func readOwned(_ item: KeychainItem) throws -> (data: Data, owner: Data?)?
    /// Adds the item; ``KeychainStatus/duplicateItem`` when one with its service, account and access group exists.
    ///
    /// - Parameter owner: A value kept in the item's `kSecAttrGeneric`, which ``delete(_:ownedBy:)`` can match.
    func add(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws
    /// Replaces the item's data, and its `kSecAttrGeneric` with `owner` when one is given; ``KeychainStatus/itemNotFound``
    /// when there is no such item.
    func update(_ item: KeychainItem, data: Data, owner: Data?, accessibility: KeychainTokenStore.Accessibility) throws
    /// Deletes the item, only if its `kSecAttrGeneric` is `owner` when one is given; ``KeychainStatus/itemNotFound``
    /// when nothing matched.
    func delete(_ item: KeychainItem, ownedBy owner: Data?) throws
    /// The account of every item of `service` (in `accessGroup`, when one is given): their attributes only, no data.
    ///
    /// - Throws: ``KeychainStatus`` for any answer but success and `errSecItemNotFound` (no item: empty).
    func accounts(service: String, accessGroup: String?) throws -> [String]
}
