import Foundation

/// Finds the descriptors that ship with OAuthFlow as SwiftPM resources.
///
/// SwiftPM's generated `Bundle.module` traps on Linux when the resource bundle is
/// not next to the executable (for example after copying the binary elsewhere).
/// Here a missing bundle only means there are no bundled providers; the registry
/// still loads the host's and the user's directories.
package enum BundledProviders {
    static let bundleName = "OAuthFlow_OAuthFlow"
    static let folder = "BundledProviders"

    /// The directory holding the bundled `.yaml` files, if it can be found.
    public static var directory: URL? { located }

    private static let located: URL? = {
        #if canImport(Darwin)
        if let url = Bundle.module.url(forResource: folder, withExtension: nil) {
            return url
        }
        #endif
        // Places to look, cheapest first: on Linux the executable's own directory is one
        // readlink away, while asking `Bundle.main` first sets up CoreFoundation's bundle
        // machinery (half a millisecond of every start).
        var candidates: [() -> URL?] = []
        #if os(Linux)
        candidates.append {
            guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
            return URL(fileURLWithPath: path).deletingLastPathComponent()
        }
        #endif
        candidates += [
            { Bundle.main.bundleURL },
            { Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() },
            {
                guard let argument = CommandLine.arguments.first, argument.contains("/") else { return nil }
                return URL(fileURLWithPath: argument).resolvingSymlinksInPath().deletingLastPathComponent()
            },
        ]
        for candidate in candidates {
            guard let base = candidate() else { continue }
            for suffix in ["resources", "bundle"] {
                let url = base.appendingPathComponent("\(bundleName).\(suffix)/\(folder)", isDirectory: true)
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }()

    /// What each bundled descriptor file gave when this process last read it, with the file's identity then. Every
    /// registry load (each `OAuth` a host makes, each `ProviderRegistry.load`) would otherwise parse the whole catalog
    /// again; a file replaced since (an upgrade under a running process) is read again, and a file that could not be
    /// read is not kept.
    private static let readings = Locked<[String: (identity: FileIdentity, reading: ProviderRegistry.FileReading<ProviderDescriptor>)]>([:])

    /// A file's device, inode, size and modification time: another identity is another file, or the file changed.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Double

        init?(path: String) {
            var info = stat()
            guard stat(path, &info) == 0 else { return nil }
            device = UInt64(truncatingIfNeeded: info.st_dev)
            inode = UInt64(truncatingIfNeeded: info.st_ino)
            size = Int64(info.st_size)
            modified = SafeFile.modificationTime(of: info)
        }
    }

    /// The reading of the bundled `file`: the one kept from an earlier read of the same file, else `read`'s answer,
    /// kept when it read a descriptor.
    static func reading(
        of file: URL, read: (URL) -> ProviderRegistry.FileReading<ProviderDescriptor>
    ) -> ProviderRegistry.FileReading<ProviderDescriptor> {
        let identity = FileIdentity(path: file.path)
        if let identity, let known = readings.withLock({ $0[file.path] }), known.identity == identity { return known.reading }
        let fresh = read(file)
        // Kept only when the file was the same before and after the read: one replaced meanwhile is read again next time.
        if case .read = fresh, let identity, FileIdentity(path: file.path) == identity {
            readings.withLock { $0[file.path] = (identity, fresh) }
        }
        return fresh
    }
}
