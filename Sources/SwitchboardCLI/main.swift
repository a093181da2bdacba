import Foundation

exit(SwitchboardCommand.run(Array(CommandLine.arguments.dropFirst())))
