import Foundation
import SoarCommands
import SoarCrypto

OpenSSLProcess.keepStateUntilExit()
exit(await SoarCLI.run(Array(CommandLine.arguments.dropFirst())))
