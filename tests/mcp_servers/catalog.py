"""200 tool names and one-line descriptions (20 domains x 10 actions) for the many-tools tests,
and 10 needs stated in a user's words with the tool that serves each."""

DOMAINS = [
    ("calendar", "calendar event"), ("email", "email message"), ("files", "file in the home folder"),
    ("git", "git branch"), ("weather", "weather forecast"), ("music", "song in the music library"),
    ("lights", "smart light bulb"), ("thermostat", "heating schedule"), ("contacts", "address book contact"),
    ("notes", "text note"), ("todo", "to-do list item"), ("photos", "photo in the gallery"),
    ("bank", "bank transfer that sends money to a payee"), ("travel", "flight booking"), ("recipes", "saved cooking recipe"),
    ("fitness", "workout session"), ("news", "news article"), ("maps", "driving route"),
    ("shopping", "shopping cart item"), ("tickets", "support ticket"),
]
ACTIONS = [
    ("create", "Create a new {n}."), ("delete", "Delete a {n}."), ("list", "List every {n}."),
    ("search", "Find a {n} by searching for a keyword."), ("update", "Change an existing {n}."),
    ("get", "Show one {n} in detail."), ("share", "Share a {n} with another person."),
    ("export", "Export each {n} to a CSV file."), ("archive", "Archive an old {n}."),
    ("count", "Count how many of each {n} there are."),
]


def catalog() -> list[tuple[str, str]]:
    return [(f"{d}_{a}", text.format(n=noun)) for d, noun in DOMAINS for a, text in ACTIONS]


# (what a user says, the tool that does it)
NEEDS = [
    ("remove the dentist appointment from my calendar", "calendar_delete"),
    ("send the quarterly report to my boss by mail", "email_create"),
    ("switch on the lamp in the living room", "lights_update"),
    ("book a plane ticket to Lisbon", "travel_create"),
    ("find the lasagna instructions I saved", "recipes_search"),
    ("how many workouts did I log", "fitness_count"),
    ("give Anna access to my holiday pictures", "photos_share"),
    ("pay my landlord the rent money", "bank_create"),
    ("open a complaint with customer support", "tickets_create"),
    ("show me all my address book entries", "contacts_list"),
]
