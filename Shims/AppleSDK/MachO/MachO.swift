// A stand-in for Apple's MachO module (the `<mach-o/…>` headers), which Darwin does not re-export: code that calls
// these must `import MachO` (swift-foundation imports `MachO.dyld` for the same call). Nothing here runs.
import Darwin

/// `int _NSGetExecutablePath(char *buf, uint32_t *bufsize)` (dyld(3)): the path of the main executable; -1 and the
/// size needed in `bufsize` when `buf` is too small.
public func _NSGetExecutablePath(_ buf: UnsafeMutablePointer<CChar>!, _ bufsize: UnsafeMutablePointer<UInt32>!) -> Int32 { -1 }
