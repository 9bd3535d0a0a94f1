import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// The device's ``BootClock``: a monotonic clock that counts while the device sleeps, and the boot session's identifier.
///
/// The two system calls are thin glue for each platform; what a reading means is decided by the lease's logic, which
/// the tests run on Linux with a clock of their own.
struct SystemBootClock: BootClock {
    /// Read once a process: it does not change until the device restarts, which ends the process.
    static let boot = bootSession() ?? ""

    func now() -> BootInstant {
        BootInstant(boot: Self.boot, nanoseconds: Self.nanosecondsSinceBoot())
    }

    #if canImport(Darwin)
    /// `clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW)`: Apple's documented equivalent of `mach_continuous_time()` in
    /// nanoseconds, a clock that increments monotonically and goes on while the system is asleep, which no setting of
    /// the date changes (unlike `CLOCK_UPTIME_RAW` and `mach_absolute_time()`, which stop during sleep).
    static func nanosecondsSinceBoot() -> UInt64 {
        clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW)
    }

    /// `kern.bootsessionuuid`: a UUID the kernel makes at each start.
    static func bootSession() -> String? {
        var buffer = [CChar](repeating: 0, count: 64)
        var size = buffer.count
        guard sysctlbyname("kern.bootsessionuuid", &buffer, &size, nil, 0) == 0, size > 1, size <= buffer.count else { return nil }
        return String(decoding: buffer.prefix(size).prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
    #else
    /// `CLOCK_BOOTTIME`: monotonic, counting the time the system was suspended, never set.
    static func nanosecondsSinceBoot() -> UInt64 {
        var now = timespec()
        guard clock_gettime(CLOCK_BOOTTIME, &now) == 0 else { return 0 }
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `/proc/sys/kernel/random/boot_id`: a UUID the kernel makes at each start.
    static func bootSession() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else { return nil }
        let boot = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return boot.isEmpty ? nil : boot
    }
    #endif
}
