/// A dictionary that keeps at most `capacity` entries: when full, inserting drops the least recently used half.
/// Reads and inserts cost O(1), and a trim O(n log n) once per `capacity / 2` inserts.
package struct RecentlyUsed<Key: Hashable, Value> {
    package let capacity: Int
    private var entries: [Key: (value: Value, used: UInt64)] = [:]
    private var clock: UInt64 = 0

    package init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    package var count: Int { entries.count }

    /// The value for `key`, marked as just used.
    package mutating func value(for key: Key) -> Value? {
        guard let entry = entries[key] else { return nil }
        clock += 1
        entries[key] = (entry.value, clock)
        return entry.value
    }

    package mutating func insert(_ value: Value, for key: Key) {
        if entries[key] == nil, entries.count >= capacity {
            let keep = entries.sorted { $0.value.used > $1.value.used }.prefix(capacity / 2)
            entries = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
        }
        clock += 1
        entries[key] = (value, clock)
    }

    package mutating func remove(_ key: Key) {
        entries[key] = nil
    }
}
