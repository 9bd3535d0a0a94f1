import Foundation
import OAuthFlow

/// Sessions in the Apple keychain, one generic-password item each, with the promises `FileTokenStore` keeps.
///
/// Every process of an app, its extensions included, must use the same ``service`` and ``accessGroup``.
public struct KeychainTokenStore: TokenStore {
    /// When the items may be read (`kSecAttrAccessible`).
    public enum Accessibility: Sendable, Hashable {
        /// After the first unlock since the device started, on this device only (the default): what a refresh in the
        /// background (a background task, a push, a widget) needs.
        case afterFirstUnlockThisDeviceOnly
        /// After the first unlock, and restored to another device from an encrypted backup.
        case afterFirstUnlock
        /// Only while the device is unlocked, on this device only: a refresh while it is locked fails (`unavailable`).
        case whenUnlockedThisDeviceOnly
        /// Only while the device is unlocked, and restored to another device from an encrypted backup.
        case whenUnlocked
        /// Only while unlocked, and only while the device has a passcode: removed when the passcode is.
        case whenPasscodeSetThisDeviceOnly
    }

    /// The items' `kSecAttrService`.
    public let service: String
    /// The service this store's sessions were kept under before ``defaultService``: `BUNDLE-ID.oauthflow`, read once
    /// on a miss and moved; nil when the service was named.
    let legacyService: String?
    /// The items' `kSecAttrAccessGroup`: a keychain access group the app and its extensions share; nil for the app's
    /// default group.
    public let accessGroup: String?
    public let accessibility: Accessibility
    let items: any KeychainItems
    /// The wall clock, for naming items set aside.
    let clock: any DateClock
    /// What leases are timed by: time since the device started, counting sleep (``SystemBootClock``).
    let bootClock: any BootClock
    /// How long a lease lasts: longer than any refresh, so that only a holder the system killed (or suspended for
    /// longer) outlives it.
    let leaseDuration: TimeInterval
    /// How long ``lock(_:)`` waits for another process's lease before giving up (`unavailable`): a little more than a
    /// lease can last.
    let lockWait: TimeInterval

    #if canImport(Security)
    /// A store in the keychain of this app.
    ///
    /// - Parameters:
    ///   - service: The items' service; nil for ``defaultService``, which every process of the app (its extensions
    ///     too) then shares.
    ///   - accessGroup: A keychain access group (`TEAMID.com.example.shared`, in the app's and its extensions'
    ///     `keychain-access-groups` entitlement) to share sessions with the app's extensions; nil for the default one.
    ///   - accessibility: When the items may be read; after first unlock, this device only, by default.
    /// - Throws: Nothing today; kept throwing so that a later check of the arguments is not a breaking change.
    public init(service: String? = nil, accessGroup: String? = nil, accessibility: Accessibility = defaultAccessibility) throws {
        self.init(
            service: service, bundleIdentifier: Bundle.main.bundleIdentifier, accessGroup: accessGroup, accessibility: accessibility,
            items: SecurityKeychainItems())
    }
    #endif

    /// The service every process uses unless told otherwise: one constant, so that the app and its extensions (each
    /// with its own bundle identifier) read the same items and take the same lease.
    public static let defaultService = "OAuthFlow"

    /// A store whose service, when not named, is ``defaultService``, with the old default of `bundleIdentifier` to
    /// move sessions from.
    init(
        service: String?, bundleIdentifier: String?, accessGroup: String?, accessibility: Accessibility = defaultAccessibility,
        items: any KeychainItems, clock: any DateClock = SystemDateClock(), bootClock: any BootClock = SystemBootClock()
    ) {
        self.init(
            service: service ?? Self.defaultService, accessGroup: accessGroup, accessibility: accessibility, items: items, clock: clock,
            bootClock: bootClock, legacyService: service == nil ? Self.legacyService(bundleIdentifier: bundleIdentifier) : nil)
    }

    /// After first unlock, this device only: a refresh in the background works while the device is locked.
    @usableFromInline static let defaultAccessibility = Accessibility.afterFirstUnlockThisDeviceOnly

    init(
        service: String, accessGroup: String?, accessibility: Accessibility = defaultAccessibility, items: any KeychainItems,
        clock: any DateClock = SystemDateClock(), bootClock: any BootClock = SystemBootClock(),
        leaseDuration: TimeInterval = 120, lockWait: TimeInterval? = nil, legacyService: String? = nil
    ) {
        self.service = service
        self.legacyService = legacyService
        self.accessGroup = accessGroup
        self.accessibility = accessibility
        self.items = items
        self.clock = clock
        self.bootClock = bootClock
        self.leaseDuration = leaseDuration
        self.lockWait = lockWait ?? leaseDuration + 10
    }

    /// `BUNDLE-ID.oauthflow`: the default service before ``defaultService``, different in each extension.
    static func legacyService(bundleIdentifier: String?) -> String? {
        guard let bundleIdentifier, !bundleIdentifier.isEmpty else { return nil }
        return bundleIdentifier + ".oauthflow"
    }

    // MARK: - Items

    /// `PROVIDER/ACCOUNT`, each %-escaped (all but letters, digits and `-._~`), plus `/suffix` for the session's other items.
    static func account(for key: SessionKey, suffix: String? = nil) -> String {
        let allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        func escaped(_ name: String) -> String {
            name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name
        }
        return escaped(key.providerID) + "/" + escaped(key.account) + (suffix.map { "/" + $0 } ?? "")
    }

    func item(_ key: SessionKey, _ suffix: String? = nil) -> KeychainItem {
        KeychainItem(service: service, account: Self.account(for: key, suffix: suffix), accessGroup: accessGroup)
    }

    // MARK: - TokenStore

    public func load(_ key: SessionKey) async throws -> StoredSession? {
        if let recovered = try recoverReceived(key) { return recovered }
        let item = item(key)
        guard let data = try read(item) ?? migrateLegacy(key) else { return nil }
        return try decode(data, item)
    }

    /// Saves a session; an unreadable item in its place is first copied aside (`ACCOUNT/corrupt-TIMESTAMP`).
    public func save(_ session: StoredSession) async throws {
        let item = item(session.key)
        if let current = try read(item), (try? decode(current, item)) == nil {
            try write(current, to: self.item(session.key, "corrupt-\(Int(clock.now().timeIntervalSince1970))"))
        }
        try write(try session.encoded(), to: item)
    }

    public func remove(_ key: SessionKey) async throws {
        // The record a refresh left goes too: it must not bring the session back.
        try delete(item(key, "received"))
        try delete(item(key))
        // And the one an earlier OAuthFlow kept under the old default service: a later load must not move it back.
        if let legacy = legacyItem(key) { try delete(legacy) }
    }

    /// Removes the session only while it holds `refreshToken`, and only as it was read: the item is read with its
    /// `kSecAttrGeneric` (a new random value at each write), compared, and deleted by a query that matches that value,
    /// so a session another process wrote since (a sign-in saves without the lease) is not matched and stays. An item
    /// an earlier OAuthFlow wrote without the value is deleted after it reads the same again.
    public func remove(_ key: SessionKey, whileHolding refreshToken: Secret?) async throws -> Bool {
        // A record a killed refresh left is made the session first, as every read does.
        guard let current = try await load(key), current.tokens.refreshToken == refreshToken else { return false }
        let item = item(key)
        let read: (data: Data, owner: Data?)?
        do {
            read = try items.readOwned(item)
        } catch let status as KeychainStatus {
            throw failure(status, "read", item)
        }
        guard let read, (try? decode(read.data, item))?.tokens.refreshToken == refreshToken else { return false }
        if read.owner == nil {
            guard try self.read(item) == read.data else { return false }
        }
        do {
            try items.delete(item, ownedBy: read.owner)
        } catch let status as KeychainStatus where status == .itemNotFound {
            return false
        } catch let status as KeychainStatus {
            throw failure(status, "delete", item)
        }
        try delete(self.item(key, "received"))
        return true
    }

    // MARK: - Reading and writing items

    func read(_ item: KeychainItem) throws -> Data? {
        do {
            return try items.read(item)
        } catch let status as KeychainStatus {
            throw failure(status, "read", item)
        }
    }

    /// Adds the item, or updates it when it exists: an add that meets `errSecDuplicateItem` (another process added
    /// it meanwhile) updates, and an update that finds nothing (another process deleted it meanwhile) adds again.
    ///
    /// Each write marks the item with a new random value in `kSecAttrGeneric`, so that a delete matching the value
    /// read deletes only the item as it was read (``remove(_:whileHolding:)``).
    func write(_ data: Data, to item: KeychainItem) throws {
        let version = Data(Self.newOwner().utf8)
        do {
            for _ in 0..<3 {
                do {
                    try items.add(item, data: data, owner: version, accessibility: accessibility)
                    return
                } catch let status as KeychainStatus where status == .duplicateItem {}
                do {
                    try items.update(item, data: data, owner: version, accessibility: accessibility)
                    return
                } catch let status as KeychainStatus where status == .itemNotFound {}
            }
            throw KeychainStatus.duplicateItem
        } catch let status as KeychainStatus {
            throw failure(status, "write", item)
        }
    }

    /// Deletes the item; one that is not there is not an error.
    func delete(_ item: KeychainItem) throws {
        do {
            try items.delete(item, ownedBy: nil)
        } catch let status as KeychainStatus where status == .itemNotFound {
        } catch let status as KeychainStatus {
            throw failure(status, "delete", item)
        }
    }

    /// The session in `data`: one of this format version, or `corrupt`.
    func decode(_ data: Data, _ item: KeychainItem) throws -> StoredSession {
        let session: StoredSession
        do {
            session = try StoredSession.decoded(from: data)
        } catch {
            throw TokenStoreError(
                .corrupt, "the \(item) is not a readable session (\(StoredSession.unreadableReason(data, error))); it was left in place",
                path: item.description)
        }
        guard session.formatVersion == StoredSession.currentFormatVersion else {
            throw TokenStoreError(
                .corrupt,
                "the \(item) has session format \(session.formatVersion); this OAuthFlow reads \(StoredSession.currentFormatVersion) (left in place)",
                path: item.description)
        }
        return session
    }

    /// The store's error for a keychain answer: `unavailable` while the device is locked (nothing was changed; try
    /// again once it is unlocked), `missingEntitlement`, or `io`; each naming the status.
    func failure(_ status: KeychainStatus, _ action: String, _ item: KeychainItem) -> TokenStoreError {
        let code: TokenStoreError.Code
        switch status {
        case .interactionNotAllowed: code = .unavailable
        case .missingEntitlement: code = .missingEntitlement
        default: code = .io
        }
        var message = "cannot \(action) the \(item): \(status)"
        if status == .missingEntitlement {
            message +=
                accessGroup.map { "; the app's keychain-access-groups entitlement must list \($0)" }
                ?? "; the app must be signed with an application identifier"
        }
        return TokenStoreError(code, message, path: item.description)
    }
}

extension ErrorCode where Domain == TokenStoreError {
    /// The keychain refused for want of an entitlement (`errSecMissingEntitlement`): an access group the app's
    /// `keychain-access-groups` does not list, or a process with no application identifier (an unsigned tool or test run).
    public static let missingEntitlement = Self("missing_entitlement")
}
