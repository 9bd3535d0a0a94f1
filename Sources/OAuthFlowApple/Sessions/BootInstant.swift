import Foundation

/// A reading of a ``BootClock``.
struct BootInstant: Sendable, Hashable {
    /// Which start of the device the reading belongs to (`kern.bootsessionuuid` on Apple platforms, the kernel's
    /// `boot_id` on Linux); empty when the system would not say, and then only the lease's bound on its life holds.
    var boot: String
    /// Nanoseconds since that start, sleep included.
    var nanoseconds: UInt64
}
