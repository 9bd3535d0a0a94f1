import Foundation

/// The clock a keychain lease is timed by: time since the device started, counting sleep, and which start that is.
///
/// No change of the wall clock (a user setting it, a time zone, a network time correction) moves it, so no clock step
/// can shorten or lengthen a lease; a lease taken before a restart names another boot, and is stale.
protocol BootClock: Sendable {
    /// Now, on this clock.
    func now() -> BootInstant
}
