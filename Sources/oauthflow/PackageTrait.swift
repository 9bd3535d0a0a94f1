// The oauthflow command is built only with the package trait CLI (Package.swift): without, it says so in one sentence.
#if !(CLI)
#error("oauthflow needs the package trait CLI: .package(…, traits: [\"CLI\"]), or tick it in Xcode's package traits")
#endif
