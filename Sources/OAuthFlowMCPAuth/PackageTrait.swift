// OAuthFlowMCPAuth is built only with the package trait NIO (Package.swift): without, it says so in one sentence.
#if !(NIO)
#error("OAuthFlowMCPAuth needs the package trait NIO: .package(…, traits: [\"NIO\"]), or tick it in Xcode's package traits")
#endif
