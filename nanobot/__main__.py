from nanobot.cli import main

main()
