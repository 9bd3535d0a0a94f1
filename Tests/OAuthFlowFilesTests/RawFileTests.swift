import Foundation
import OAuthFlowFiles
import Testing

@Suite struct RawFileTests {
    /// Whatever size `fstat` reported, the file is read to its end: one read when the size holds,
    /// more when the file is larger than it said (a file in /proc says 0) or than one buffer.
    @Test func aFileIsReadToItsEndWhateverSizeItReported() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rawfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for size in [0, 1, 4_095, 4_096, 65_535, 65_536, 200_001] {
            let path = directory.appendingPathComponent("f\(size)").path
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            #expect(try RawFile.read(path, limit: 1 << 20) == bytes, "\(size)")
        }
        #if os(Linux)
        let status = try RawFile.read("/proc/self/status", limit: 1 << 20)
        #expect(String(decoding: status, as: UTF8.self).contains("VmRSS:"))
        // Says 0 and holds far more than the first page the read starts with.
        let maps = try RawFile.read("/proc/self/smaps", limit: 64 << 20)
        #expect(maps.count > 8_192 && maps.last == 0x0A)
        #endif
    }

    /// A file of exactly the limit is read; a byte more is refused, not cut, whether `fstat` told the size or not; no
    /// limit is too large to ask for.
    @Test func theLimitHoldsToTheByte() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rawfile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("f").path
        let bytes = [UInt8](repeating: 0x61, count: 5_000)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try RawFile.read(path, limit: 5_000) == bytes)
        #expect(try RawFile.read(path, limit: .max) == bytes)
        #expect(throws: RawFile.ReadError.self) { try RawFile.read(path, limit: 4_999) }
        #if os(Linux)
        #expect(throws: RawFile.ReadError.self) { try RawFile.read("/proc/self/smaps", limit: 5_000) }
        #endif
    }
}
