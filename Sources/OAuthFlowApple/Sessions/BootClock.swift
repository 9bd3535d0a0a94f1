import Foundation

/// The clock a keychain lease is timed by: time since the device started, counting sleep, and which start that is.
///
/// No change of the wall clock (a user setting it, a time zone, a network time correction) moves it, so no clock step
/// can shorten or lengthen a lease; a lease taken before a restart names another boot, and is stale.
protocol BootClock: Sendable {
    /// Now, on this clock.
    func now() -> BootInstant
}

/// A reading of a ``BootClock``.
struct BootInstant: Sendable, Hashable {
    /// Which start of the device the reading belongs to (`kern.bootsessionuuid` on Apple platforms, the kernel's
    /// `boot_id` on Linux); empty when the system would not say, and then only the lease's bound on its life holds.
    var boot: String
    /// Nanoseconds since that start, sleep included.
    var nanoseconds: UInt64
}
