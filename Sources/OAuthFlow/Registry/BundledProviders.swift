import Foundation

/// Finds the descriptors that ship with OAuthFlow as SwiftPM resources.
///
/// SwiftPM's generated `Bundle.module` traps on Linux when the resource bundle is
/// not next to the executable (for example after copying the binary elsewhere).
/// Here a missing bundle only means there are no bundled providers; the registry
/// still loads the host's and the user's directories.
public enum BundledProviders {
    static let bundleName = "OAuthFlow_OAuthFlow"
    static let folder = "BundledProviders"

    /// The directory holding the bundled `.yaml` files, if it can be found.
    public static var directory: URL? {
        #if canImport(Darwin)
        if let url = Bundle.module.url(forResource: folder, withExtension: nil) {
            return url
        }
        #endif
        var candidates: [URL] = [Bundle.main.bundleURL]
        if let executable = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            candidates.append(executable.deletingLastPathComponent())
        }
        if let argument = CommandLine.arguments.first, argument.contains("/") {
            candidates.append(URL(fileURLWithPath: argument).resolvingSymlinksInPath().deletingLastPathComponent())
        }
        for base in candidates {
            for suffix in ["resources", "bundle"] {
                let url = base.appendingPathComponent("\(bundleName).\(suffix)/\(folder)", isDirectory: true)
                if FileManager.default.fileExists(atPath: url.path) { return url }
            }
        }
        return nil
    }
}
