import Foundation
import SoarCommands

exit(await SoarCLI.run(Array(CommandLine.arguments.dropFirst())))
