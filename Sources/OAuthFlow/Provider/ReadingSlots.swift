import Foundation

/// One value for each of a fixed number of files, stored from any thread in any order and read once all are stored
/// (``ProviderRegistry``'s reading of a directory's descriptors on every core).
final class ReadingSlots<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Value?]

    init(count: Int) {
        slots = Array(repeating: nil, count: count)
    }

    func store(_ value: Value, at index: Int) {
        lock.withLock { slots[index] = value }
    }

    /// Every value, in order; call it after every slot is stored.
    var values: [Value] {
        lock.withLock { slots.compactMap { $0 } }
    }
}
