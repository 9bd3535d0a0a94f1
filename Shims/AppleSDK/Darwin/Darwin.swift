// A stand-in for Apple's Darwin module, for type-checking the package's `#if canImport(Darwin)` and `os(macOS)` branches
// on Linux (scripts/apple-typecheck.sh builds it as a module named Darwin, and compiles those branches as an Apple build
// chooses them). Nothing here runs.
//
// Darwin and Glibc share most of POSIX, so this module re-exports Glibc (Linux's Foundation re-exports it anyway) and
// adds what differs, each from Apple's documentation or the SDK's headers as Swift imports them:
// - what Darwin has and Glibc has not, with Apple's names and types (stat(2): `st_mtimespec`; fcntl(2): `F_PREALLOCATE`
//   and `fstore_t`; socket(2): `SOCK_STREAM` is an `Int32`);
// - what Glibc has and an Apple build refuses, declared a second time here, deprecated with the reason: names Darwin's
//   C library does not declare (`posix_fallocate`, `pipe2`, `environ`, `st_mtim`), and names Swift's Darwin overlay
//   marks unavailable (`fork()`: "Please use threads or posix_spawn*()"). A file that reaches Glibc only through this
//   module gets this declaration and its deprecation warning; one that also imports Foundation (which re-exports Glibc
//   on Linux) gets "ambiguous use of …" with this declaration as a candidate. The check fails on either.
// What `<mach-o/dyld.h>` declares (`_NSGetExecutablePath`) is the MachO module's, which Darwin does not re-export: it is
// in Shims/AppleSDK/MachO.
//
// What this cannot show: a name both C libraries declare with other types (on Linux `SOCK_STREAM` is an enum with a
// `rawValue`, so `SOCK_STREAM.rawValue` still type-checks here), and every Darwin-only name not listed below (an
// error here; add it from Apple's documentation when the code needs it).
@_exported import Glibc

// MARK: - stat(2): Darwin's names for the time fields

extension stat {
    /// `st_atimespec`: the time of last access.
    public var st_atimespec: timespec { timespec() }
    /// `st_mtimespec`: the time of last data modification.
    public var st_mtimespec: timespec { timespec() }
    /// `st_ctimespec`: the time of last status change.
    public var st_ctimespec: timespec { timespec() }
    /// `st_birthtimespec`: the time of file creation.
    public var st_birthtimespec: timespec { timespec() }
}

// MARK: - fcntl(2): preallocation and full sync

/// `struct fstore`, the argument of `F_PREALLOCATE`.
public struct fstore {
    /// `F_ALLOCATECONTIG`, `F_ALLOCATEALL`.
    public var fst_flags: UInt32
    /// `F_PEOFPOSMODE` or `F_VOLPOSMODE`.
    public var fst_posmode: Int32
    /// The start of the region.
    public var fst_offset: off_t
    /// The size of the region.
    public var fst_length: off_t
    /// Out: the bytes allocated.
    public var fst_bytesalloc: off_t
    public init() { (fst_flags, fst_posmode, fst_offset, fst_length, fst_bytesalloc) = (0, 0, 0, 0, 0) }
    public init(fst_flags: UInt32, fst_posmode: Int32, fst_offset: off_t, fst_length: off_t, fst_bytesalloc: off_t) {
        (self.fst_flags, self.fst_posmode, self.fst_offset, self.fst_length) = (fst_flags, fst_posmode, fst_offset, fst_length)
        self.fst_bytesalloc = fst_bytesalloc
    }
}
/// `typealias fstore_t = fstore`.
public typealias fstore_t = fstore
/// `F_ALLOCATECONTIG`: allocate contiguous space.
public var F_ALLOCATECONTIG: Int32 { 0x0000_0002 }
/// `F_ALLOCATEALL`: allocate all requested space or none.
public var F_ALLOCATEALL: Int32 { 0x0000_0004 }
/// `F_PEOFPOSMODE`: allocate from the physical end of the file.
public var F_PEOFPOSMODE: Int32 { 3 }
/// `F_VOLPOSMODE`: allocate from the volume offset.
public var F_VOLPOSMODE: Int32 { 4 }
/// `F_PREALLOCATE`: preallocate storage.
public var F_PREALLOCATE: Int32 { 42 }
/// `F_FULLFSYNC`: flush the drive's buffers to permanent storage.
public var F_FULLFSYNC: Int32 { 51 }

// MARK: - Clocks and the kernel's state

/// `func clock_gettime_nsec_np(_ __clock_id: clockid_t) -> UInt64` (clock_gettime(3), macOS 10.12, iOS 10): the clock's
/// value in nanoseconds; `CLOCK_MONOTONIC_RAW` goes on while the system sleeps, as `mach_continuous_time()` does.
@available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, *)
public func clock_gettime_nsec_np(_ clock: clockid_t) -> UInt64 { 0 }

/// `func sysctlbyname(_: UnsafePointer<CChar>!, _: UnsafeMutableRawPointer!, _: UnsafeMutablePointer<Int>!,
/// _: UnsafeMutableRawPointer!, _: Int) -> Int32` (sysctl(3)): reads (and sets) a kernel state by name.
public func sysctlbyname(
    _ name: UnsafePointer<CChar>!, _ oldp: UnsafeMutableRawPointer!, _ oldlenp: UnsafeMutablePointer<Int>!, _ newp: UnsafeMutableRawPointer!,
    _ newlen: Int
) -> Int32 { -1 }

// MARK: - socket(2)

/// `SOCK_STREAM`, an `Int32` on Darwin.
public var SOCK_STREAM: Int32 { 1 }
/// `SOCK_DGRAM`, an `Int32` on Darwin.
public var SOCK_DGRAM: Int32 { 2 }

// MARK: - What an Apple build refuses

@available(*, deprecated, message: "unavailable in an Apple build: Please use threads or posix_spawn*()")
public func fork() -> pid_t { -1 }
@available(*, deprecated, message: "unavailable in an Apple build: Please use threads or posix_spawn*()")
public func vfork() -> pid_t { -1 }
@available(*, deprecated, message: "not in an Apple build: preallocate with fcntl(fd, F_PREALLOCATE, &fstore)")
public func posix_fallocate(_ fd: Int32, _ offset: off_t, _ length: off_t) -> Int32 { -1 }
@available(*, deprecated, message: "not in an Apple build: pipe, then fcntl(F_SETFD, FD_CLOEXEC)")
public func pipe2(_ fds: UnsafeMutablePointer<Int32>!, _ flags: Int32) -> Int32 { -1 }
@available(*, deprecated, message: "not declared to Swift in an Apple build (environ(7))")
public var environ: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>! { nil }

extension stat {
    @available(*, deprecated, message: "not in an Apple build: Darwin names it st_atimespec")
    public var st_atim: timespec { timespec() }
    @available(*, deprecated, message: "not in an Apple build: Darwin names it st_mtimespec")
    public var st_mtim: timespec { timespec() }
    @available(*, deprecated, message: "not in an Apple build: Darwin names it st_ctimespec")
    public var st_ctim: timespec { timespec() }
}
