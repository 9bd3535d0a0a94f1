/// Where OAuthFlow keeps its files, by the XDG Base Directory Specification, as paths.
public enum StateFiles {
    /// `$XDG_CONFIG_HOME`, or `~/.config` when it is unset, empty or relative.
    public static func configHome(environment: [String: String]) -> String {
        base("XDG_CONFIG_HOME", fallback: ".config", environment: environment)
    }

    /// `$XDG_STATE_HOME`, or `~/.local/state` when it is unset, empty or relative.
    public static func stateHome(environment: [String: String]) -> String {
        base("XDG_STATE_HOME", fallback: ".local/state", environment: environment)
    }

    /// The session directory of the default file store: `$XDG_STATE_HOME/oauthflow`.
    public static func sessionDirectory(environment: [String: String]) -> String {
        stateHome(environment: environment) + "/oauthflow"
    }

    /// The clients file: `$XDG_CONFIG_HOME/oauthflow/clients.yaml`.
    public static func clientsFile(environment: [String: String]) -> String {
        configHome(environment: environment) + "/oauthflow/clients.yaml"
    }

    /// `PROVIDER--ACCOUNT`, the stem of a session's file (`.json`), lock (`.json.lock`) and refresh record
    /// (`.received.json`), each part through ``stemComponent(_:)``.
    public static func sessionStem(providerID: String, account: String) -> String {
        stemComponent(providerID) + "--" + stemComponent(account)
    }

    /// ``fileComponent(_:)``, with what would make two sessions' files one escaped too: a `-` beside another or at
    /// either end (so `--` in a stem is only the separator: provider `a--b` and account `c` against provider `a` and
    /// account `b--c`), and the `.` of a trailing `.received` or `.pending` (account `work.received`'s file would be
    /// account `work`'s refresh record). Every other name keeps the file it always had.
    public static func stemComponent(_ name: String) -> String {
        let plain = fileComponent(name)
        guard plain.contains("--") || plain.hasPrefix("-") || plain.hasSuffix("-") || plain.hasSuffix(".received") || plain.hasSuffix(".pending")
        else { return plain }
        let bytes = Array(plain.utf8)
        var out = ""
        for index in bytes.indices {
            let byte = bytes[index]
            let dash = byte == UInt8(ascii: "-")
            let lonely =
                index > 0 && index < bytes.count - 1 && bytes[index - 1] != UInt8(ascii: "-") && bytes[index + 1] != UInt8(ascii: "-")
            if dash, !lonely {
                out += "%2D"
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        for suffix in [".received", ".pending"] where out.hasSuffix(suffix) {
            out = String(out.dropLast(suffix.count)) + "%2E" + suffix.dropFirst()
        }
        return out
    }

    /// A name as a safe file name component: ASCII letters, digits, `-`, `_` and a `.` that does not
    /// lead stay; every other byte is %-escaped (`%2F`), and the empty name is `%00`.
    public static func fileComponent(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let letter = (byte >= 65 && byte <= 90) || (byte >= 97 && byte <= 122)
            if letter || (byte >= 48 && byte <= 57) || byte == 45 || byte == 95 || (byte == 46 && !out.isEmpty) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += "%" + hexDigits(byte)
            }
        }
        return out.isEmpty ? "%00" : out
    }

    static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    private static func base(_ variable: String, fallback: String, environment: [String: String]) -> String {
        if let value = environment[variable], value.hasPrefix("/") { return value }
        return home(environment: environment) + "/" + fallback
    }

    /// `$HOME`, or the user's home directory from the password database when it is unset or empty.
    public static func home(environment: [String: String]) -> String {
        if let home = environment["HOME"], !home.isEmpty { return home }
        if let entry = getpwuid(geteuid()), let directory = entry.pointee.pw_dir { return String(cString: directory) }
        return "/"
    }

    /// The variables the directories above are found from: `HOME`, `XDG_CONFIG_HOME` and `XDG_STATE_HOME`.
    public static let directoryVariables = ["HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"]

    /// The named variables of the process's environment: what the launcher reads instead of the whole environment,
    /// which it hands on to the full command as it is. Read as Foundation's `ProcessInfo` reads the environment, so
    /// that both find the same directories: an entry that is not UTF-8 is left out, and of a name set twice the
    /// last is taken. On Apple platforms, whose C library does not declare `environ` to Swift (environ(7): code in a
    /// library reaches it through `_NSGetEnviron()`), each name is read with `getenv`, which takes the first of a
    /// name set twice.
    public static func processEnvironment(_ names: [String]) -> [String: String] {
        var environment: [String: String] = [:]
        #if canImport(Darwin)
        for name in names {
            guard let pointer = getenv(name) else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            if let value = UTF8Validation.string(bytes) { environment[name] = value }
        }
        #else
        var entry = environ
        while let pointer = entry.pointee {
            entry += 1
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: strlen(pointer))
            for name in names {
                let count = name.utf8.count
                guard bytes.count > count, bytes[count] == UInt8(ascii: "="), bytes[..<count].elementsEqual(name.utf8) else { continue }
                guard let value = UTF8Validation.string(UnsafeBufferPointer(rebasing: bytes[(count + 1)...])) else { break }
                environment[name] = value
                break
            }
        }
        #endif
        return environment
    }
}
