/// Every token manager an `OAuth` handed out, by session, held weakly: a host may keep one (inside an authorizer) after
/// the `OAuth` let it go, and it must still hear that a sign-in replaced its session, each time one does.
struct HeldManagers: Sendable {
    private struct Entry: Sendable {
        weak var manager: TokenManager?
    }

    private var entries: [SessionKey: [Entry]] = [:]
    /// How many sessions may be listed before those none of whose managers is alive are swept out.
    private var sweepAt = 4096

    /// Lists `manager` for `key`, once.
    mutating func add(_ manager: TokenManager, for key: SessionKey) {
        // Every `session(_:)` call lists its manager: one already listed costs a look, not a new list.
        if entries[key]?.contains(where: { $0.manager === manager }) == true { return }
        var list = entries[key, default: []].filter { $0.manager != nil }
        list.append(Entry(manager: manager))
        entries[key] = list
        if entries.count > sweepAt {
            entries = entries.filter { $0.value.contains { $0.manager != nil } }
            sweepAt = max(4096, 2 * entries.count)
        }
    }

    /// The managers of `keys` that are still alive.
    func alive(for keys: [SessionKey]) -> [TokenManager] {
        keys.flatMap { entries[$0] ?? [] }.compactMap(\.manager)
    }
}
