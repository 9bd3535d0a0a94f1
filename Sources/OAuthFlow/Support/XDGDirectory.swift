import Foundation
import OAuthFlowFiles

/// XDG base directories (freedesktop.org Base Directory Specification), as ``StateFiles`` finds them.
package enum XDGDirectory {
    /// `$XDG_CONFIG_HOME`, or `~/.config` when it is unset, empty or relative.
    public static func config(environment: [String: String]) -> URL {
        URL(fileURLWithPath: StateFiles.configHome(environment: environment), isDirectory: true)
    }

    /// `$XDG_STATE_HOME`, or `~/.local/state` when it is unset, empty or relative.
    public static func state(environment: [String: String]) -> URL {
        URL(fileURLWithPath: StateFiles.stateHome(environment: environment), isDirectory: true)
    }
}
