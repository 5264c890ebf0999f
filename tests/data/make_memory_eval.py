"""Writes memory_eval.json: a labelled retrieval set for tests/test_memory_recall.py.

~60 hand-written facts a personal assistant would keep, ~300 templated look-alike records (hosts,
contacts, books, ...) that make keyword-heavy look-ups hard for vectors alone, and 50 queries, each
labelled with the id of the memory that answers it. Deterministic (seeded); run it to regenerate:

    .venv/bin/python tests/data/make_memory_eval.py
"""

from __future__ import annotations

import json
import random
from pathlib import Path

FACTS = {  # id: (heading, text)
    "wife": ("Family", "My wife is Ana Ribeiro; we married in Lisbon in 2015."),
    "anniv": ("Family", "Our wedding anniversary is on 14 September."),
    "kid_school": ("Family", "Our daughter Lia goes to Riverside Primary, pickup is at 15:30."),
    "kid_allergy": ("Family", "Lia is allergic to peanuts and carries an EpiPen."),
    "mom_bday": ("Family", "Mum's birthday is 3 March; she loves orchids."),
    "dog": ("Family", "Our dog Biscuit is a beagle who needs a walk at 7am and 6pm."),
    "vet": ("Family", "Biscuit's vet is Dr. Okafor at Paws Clinic, yearly vaccination in June."),
    "brother": ("Family", "My brother Tomás lives in Montreal and works as a nurse."),
    "coffee": ("Preferences", "I take my coffee black, no sugar, and never after 3pm."),
    "diet": ("Preferences", "I am vegetarian but eat fish occasionally."),
    "music": ("Preferences", "Favourite music while working: lo-fi and Bach cello suites."),
    "editor": ("Preferences", "I write code in Neovim with the gruvbox theme."),
    "meetings": ("Preferences", "I prefer no meetings before 10am; mornings are for deep work."),
    "tone": ("Preferences", "Keep answers short and skip the pleasantries."),
    "units": ("Preferences", "Use metric units and 24-hour time."),
    "employer": ("Work", "I work at Northwind Labs as a backend engineer since 2021."),
    "manager": ("Work", "My manager is Priya Nair; 1:1s are Thursdays at 11:00."),
    "oncall": ("Work", "I am on call every fourth week; the pager rotation is in Opsgenie."),
    "deploy": ("Work", "Production deploys happen on Tuesdays and Thursdays only, never on Fridays."),
    "standup": ("Work", "Team standup is at 9:45 in the Aurora room or on Zoom."),
    "review": ("Work", "Pull requests need two approvals and green CI before merging."),
    "vacation": ("Work", "I have 25 vacation days a year; 9 are left for this year."),
    "zephyr": ("Projects", "Project Zephyr is the new billing service, written in Rust with Axum."),
    "zephyr_db": ("Projects", "Zephyr stores invoices in PostgreSQL 16, schema 'billing'."),
    "atlas": ("Projects", "Project Atlas migrates the monolith to Kubernetes; target date is end of Q3."),
    "side": ("Projects", "Side project: a plant-watering sensor on an ESP32 reporting over MQTT."),
    "doctor": ("Health", "My GP is Dr. Helen Marsh; the practice phone is 020 7946 0321."),
    "meds": ("Health", "I take 10 mg of loratadine in spring for hay fever."),
    "running": ("Health", "I run 5 km on Monday, Wednesday and Saturday mornings."),
    "blood": ("Health", "My blood type is O negative."),
    "dentist": ("Health", "Next dentist check-up is on 2 December at 8:30."),
    "sleep": ("Health", "I try to be in bed by 23:00 and sleep about 7 hours."),
    "address": ("Home", "We live at 42 Elm Street, flat 3B."),
    "wifi": ("Home", "The home Wi-Fi network is called 'elm-house' and the router is in the hallway."),
    "bins": ("Home", "Recycling is collected on Wednesday mornings, general waste on Fridays."),
    "landlord": ("Home", "Our landlord is Mr. Dubois; rent is due on the 1st of each month."),
    "boiler": ("Home", "The boiler was serviced in October; the engineer was from HeatWise."),
    "plants": ("Home", "The monstera needs watering once a week, the cactus once a month."),
    "car": ("Travel", "I drive a 2018 blue Toyota Yaris hybrid, registration LK18 XPT."),
    "passport": ("Travel", "My passport expires in August 2027."),
    "seat": ("Travel", "On flights I prefer an aisle seat near the front."),
    "japan": ("Travel", "We are planning a trip to Kyoto and Osaka next April."),
    "bank": ("Finance", "My salary arrives on the 25th; savings go to the ISA on the 26th."),
    "budget": ("Finance", "Monthly grocery budget is 450 euros."),
    "tax": ("Finance", "The self-assessment tax return is due on 31 January."),
    "insurance": ("Finance", "Home insurance renews in May with Direct Shield."),
    "guitar": ("Hobbies", "I am learning classical guitar; my teacher is Marco on Saturdays at 10."),
    "chess": ("Hobbies", "I play chess online as 'knightowl'; rating around 1650 rapid."),
    "reading": ("Hobbies", "Currently reading 'The Overstory' by Richard Powers."),
    "climbing": ("Hobbies", "I go bouldering at The Arch on Tuesday evenings."),
    "laptop": ("Tech setup", "My work laptop is a ThinkPad X1 Carbon running Fedora 40."),
    "backup": ("Tech setup", "Personal files are backed up nightly with restic to a Backblaze B2 bucket."),
    "phone": ("Tech setup", "I use a Pixel 8 with GrapheneOS."),
    "keyboard": ("Tech setup", "I type on a split keyboard with a Colemak layout."),
    "friend_sam": ("Friends", "Sam Whitaker is my oldest friend from university; he is a climber."),
    "friend_jo": ("Friends", "Jo and Kemal host the monthly board-game night at their place."),
    "gift": ("Friends", "Sam's birthday is 19 July; he likes single-origin coffee beans."),
}

SEMANTIC = [  # (query, fact id)
    ("What is my wife's name?", "wife"), ("When is our wedding anniversary?", "anniv"),
    ("What time do I need to pick up my daughter from school?", "kid_school"),
    ("Does Lia have any food allergies?", "kid_allergy"), ("What flowers should I buy for mum?", "mom_bday"),
    ("When does the dog need to go out?", "dog"), ("How do I like my coffee?", "coffee"),
    ("Am I vegetarian?", "diet"), ("What should I listen to while coding?", "music"),
    ("Which text editor do I use?", "editor"), ("Can I schedule a meeting at 8am?", "meetings"),
    ("Where do I work?", "employer"), ("Who is my boss?", "manager"),
    ("Can we ship to production this Friday?", "deploy"), ("How many days off do I have left?", "vacation"),
    ("What language is the billing service written in?", "zephyr"),
    ("Which database does the billing service use?", "zephyr_db"),
    ("What is my doctor's phone number?", "doctor"), ("What medicine do I take for allergies?", "meds"),
    ("Which days do I go jogging?", "running"), ("What is my home address?", "address"),
    ("Which day is recycling collected?", "bins"), ("When is rent due?", "landlord"),
    ("How often should I water the monstera?", "plants"), ("When does my passport expire?", "passport"),
    ("Where are we going on holiday in spring?", "japan"), ("When do I get paid?", "bank"),
    ("When is the tax return deadline?", "tax"), ("Who teaches me guitar?", "guitar"),
    ("What book am I reading at the moment?", "reading"), ("How are my files backed up?", "backup"),
    ("What gift should I get Sam for his birthday?", "gift"),
]

MIXED = [  # a name or term shared by several memories, plus words only the meaning ties together
    ("Does Zephyr keep its data in Postgres?", "zephyr_db"),
    ("What PostgreSQL version does billing run?", "zephyr_db"),
    ("When is Biscuit due for his shots?", "vet"),
    ("What kind of coffee does Sam enjoy?", "gift"),
    ("What time is Lia collected in the afternoon?", "kid_school"),
    ("Is Tuesday a good day to deploy Atlas to production?", "deploy"),
    ("Where does Sam like to go on weekends, climbing?", "friend_sam"),
    ("Which Kyoto trip month did we pick?", "japan"),
]

HOSTS = ["api", "db", "cache", "queue", "search", "auth", "mail", "metrics", "logs", "cdn"]
REGIONS = ["eu", "us", "ap"]
SERVICES = ["nginx", "postgres", "redis", "rabbitmq", "opensearch", "keycloak", "postfix",
            "prometheus", "loki", "varnish"]
FIRST = ["Alice", "Bruno", "Chen", "Dara", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas",
         "Kaito", "Lena", "Mateo", "Nadia", "Omar", "Paula", "Quinn", "Rosa", "Soren", "Tara",
         "Uma", "Viktor", "Wen", "Ximena", "Yusuf", "Zoe", "Amir", "Bea", "Cyril", "Dmitri"]
LAST = ["Keller", "Moreau", "Sato", "Okoye", "Lindqvist", "Haddad", "Novak", "Ferreira", "Quist",
        "Brennan"]
COMPANIES = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne"]
CHANNELS = ["email", "Signal", "a phone call", "Slack", "WhatsApp"]
TOPICS = ["gardening", "astronomy", "baking", "cycling", "photography", "history", "poetry", "sailing"]


def templated(rng: random.Random) -> tuple[dict[str, tuple[str, str]], list[tuple[str, str]]]:
    records: dict[str, tuple[str, str]] = {}
    queries: list[tuple[str, str]] = []
    for h in HOSTS:
        for r in REGIONS:
            for n in (1, 2, 3):
                name = f"{h}-{r}-{n}"
                port = rng.randint(2000, 9999)
                svc = SERVICES[HOSTS.index(h)]
                records[f"host:{name}"] = ("Infrastructure", f"Host {name} runs {svc} on port {port}, backed up at {rng.randint(0, 23):02d}:00.")
    for i, first in enumerate(FIRST):
        for last in LAST[i % 3::3][:3]:
            who = f"{first} {last}"
            records[f"contact:{who}"] = ("Contacts", f"{who} from {rng.choice(COMPANIES)} prefers {rng.choice(CHANNELS)}; phone ends in {rng.randint(1000, 9999)}.")
    for i in range(60):
        code = f"INV-{1000 + i * 7}"
        records[f"invoice:{code}"] = ("Invoices", f"Invoice {code} for {rng.randint(100, 5000)} euros to {rng.choice(COMPANIES)} was paid on day {rng.randint(1, 28)}.")
    for i in range(40):
        topic = TOPICS[i % len(TOPICS)]
        records[f"note:{i}"] = ("Notes", f"Idea {i + 1}: a weekend {topic} workshop in {rng.choice(['spring', 'summer', 'autumn', 'winter'])} with {rng.choice(FIRST)}.")
    hosts = sorted(k for k in records if k.startswith("host:"))
    for key in rng.sample(hosts, 8):
        name = key.split(":")[1]
        queries.append((f"which port is {name} on?", key))
    contacts = sorted(k for k in records if k.startswith("contact:"))
    for key in rng.sample(contacts, 6):
        queries.append((f"how does {key.split(':')[1]} like to be contacted?", key))
    invoices = sorted(k for k in records if k.startswith("invoice:"))
    for key in rng.sample(invoices, 4):
        queries.append((f"was {key.split(':')[1]} paid?", key))
    return records, queries


def main() -> None:
    rng = random.Random(20260101)
    records, kw_queries = templated(rng)
    memories = [{"id": k, "heading": h, "text": t} for k, (h, t) in {**FACTS, **records}.items()]
    queries = [{"query": q, "id": i, "kind": "semantic"} for q, i in SEMANTIC]
    queries += [{"query": q, "id": i, "kind": "mixed"} for q, i in MIXED]
    queries += [{"query": q, "id": i, "kind": "keyword"} for q, i in kw_queries]
    out = Path(__file__).with_name("memory_eval.json")
    out.write_text(json.dumps({"memories": memories, "queries": queries}, indent=1) + "\n")
    print(f"{len(memories)} memories, {len(queries)} queries -> {out}")


if __name__ == "__main__":
    main()
