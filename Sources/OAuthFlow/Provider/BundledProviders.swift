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

    /// What each bundled descriptor file gave when this process first read it. The bundle does not change while the
    /// process runs, and every registry load (each `OAuth` a host makes, each `ProviderRegistry.load`) would otherwise
    /// parse the whole catalog again.
    private static let readings = Locked<[String: ProviderRegistry.FileReading<ProviderDescriptor>]>([:])

    /// The reading of the bundled `file`: `read`'s answer the first time, kept for the process's life.
    static func reading(
        of file: URL, read: (URL) -> ProviderRegistry.FileReading<ProviderDescriptor>
    ) -> ProviderRegistry.FileReading<ProviderDescriptor> {
        if let known = readings.withLock({ $0[file.path] }) { return known }
        let fresh = read(file)
        readings.withLock { $0[file.path] = fresh }
        return fresh
    }
}
