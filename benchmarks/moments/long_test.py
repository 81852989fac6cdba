"""Long recordings of the TEST split (reported, never tuned on): same structure as DEV's, other
domains, and questions in another style — situational stories, indirect asks, terse keywords."""
from __future__ import annotations

from .corpus import Part, Recording, q

GARDEN_STREAM = Recording(
    "sunday-garden-stream", "Sunday garden stream: tomatoes from soil to harvest", "test", "long", (
        Part("intro", "Good morning, garden friends", (
            "Good morning garden friends, and welcome to the Sunday garden stream, coming to you live from the "
            "back yard with a cup of tea.",
            "On the list today: getting the soil ready, planting tomatoes, staking them, pruning them, "
            "watering, making compost, dealing with aphids, and knowing when to harvest.",
            "So if you grow tomatoes, or you worry about your soil, your compost or the bugs, this stream is "
            "for you. Soil, planting, support, pruning, water, compost, aphids and harvest, we will get to "
            "all of it.",
        )),
        Part("sponsor", "Supported by Greenthumb Seeds", (
            "This stream is supported by Greenthumb Seeds, the heirloom seed company.",
            "They have over four hundred varieties, most of them grown by small family farms, and viewers get "
            "free shipping with the code sunday garden.",
        )),
        Part("soil", "Getting the soil ready", (
            "Let us start with the soil, because everything else depends on it.",
            "Tomatoes like slightly acidic soil, a pH between six point two and six point eight. A cheap test "
            "kit from the garden center tells you where you are in about ten minutes.",
            "If your number comes back below six, work in garden lime, about a cup per square metre, and test "
            "again in a month. If it is above seven, elemental sulfur brings it down slowly.",
            "I dig in five centimetres of finished compost across the whole bed, roughly one wheelbarrow for "
            "every four metres of bed.",
            "Do not work the soil when it is wet. Squeeze a handful. If it stays in a sticky ball, wait a few "
            "days, or you will ruin the structure for the whole season.",
            "And rotate your beds. Do not put tomatoes where tomatoes, peppers or potatoes grew in the last "
            "three years, because the diseases live in the soil.",
        )),
        Part("chat-1", "A visitor", (
            "Oh, there is a robin on the fence, look at him, he is waiting for me to dig up some worms.",
            "The forecast says thunderstorms later this afternoon, so I am glad we are streaming this morning.",
            "Last week the hail shredded my neighbour's lettuce, so fingers crossed it misses us this time. "
            "Anyway, back to the garden.",
        )),
        Part("planting", "Planting tomatoes", (
            "Now the fun part, planting the tomatoes.",
            "Wait until night temperatures stay above ten degrees Celsius, which here is usually two weeks after "
            "the last frost date.",
            "Harden the seedlings off for a week first: a couple of hours outside in the shade on day one, and a "
            "little longer and a little sunnier every day after that.",
            "Plant them deep. Strip off the lower leaves and bury two thirds of the stem, because tomatoes grow "
            "roots all along any stem that is underground. Leggy seedlings love this.",
            "Space them sixty centimetres apart, and push the stake or the cage in now, at planting time, so you "
            "do not spear the roots later in the summer.",
            "Water each one in with about a litre of water, and I like to add a handful of worm castings to the "
            "planting hole.",
        )),
        Part("support", "Stakes and cages", (
            "While we are at it, a word on support, because a tomato plant full of fruit is heavy.",
            "For the tall vining kinds I use two metre wooden stakes, or a sturdy cage made from concrete "
            "reinforcing mesh. Those flimsy cone cages from the store are only good for peppers.",
            "Tie the main stem to the stake every thirty centimetres with soft cotton twine or strips of old "
            "t-shirt, in a loose figure eight, so the string never cuts into the stem as it thickens.",
            "Check the ties every week or so. A plant can grow ten centimetres in a warm week and a tight tie "
            "will strangle it.",
        )),
        Part("chat-2", "Grandpa's hat", (
            "Somebody asks where I got this hat. It was my grandfather's, and it is older than I am.",
            "And Priya says hello from Toronto. Hi Priya, I hope your snow has finally melted.",
        )),
        Part("pruning", "Pruning", (
            "Pruning is where people get nervous, so let me show you on this plant here.",
            "See this little shoot growing in the angle between the main stem and a leaf branch? That is a "
            "sucker.",
            "On indeterminate varieties, the vining ones, pinch the suckers off while they are under five "
            "centimetres long, just with your fingers, no tools needed.",
            "Determinate varieties, the bush tomatoes, are different. Leave most of their suckers alone, or you "
            "will be cutting away your own harvest.",
            "Also remove every leaf that touches the ground. Soil splashing up onto the leaves is how early "
            "blight gets started.",
            "Do your pruning on a dry, sunny morning, so the little wounds close up quickly.",
        )),
        Part("chat-3", "Sun in the lens", (
            "Let me move the camera, the sun is right in the lens.",
            "Someone asked if I talk to my plants. Of course I do. They are excellent listeners and they never "
            "interrupt.",
        )),
        Part("watering", "Watering", (
            "Let us talk about water.",
            "Water deeply at the base of the plant, about two and a half centimetres a week, in two good "
            "sessions rather than a little sprinkle every day.",
            "Water in the morning so the leaves dry out before night. Wet leaves overnight are an invitation for "
            "fungus.",
            "Uneven watering causes blossom end rot, those black leathery patches on the bottom of the fruit. It "
            "is a problem of calcium uptake when the soil swings from wet to dry, not usually missing calcium.",
            "So mulch with five centimetres of straw to keep the moisture even, and keep the watering steady "
            "through the hot weeks.",
            "A drip line on a cheap timer is the best twenty dollars I ever spent in this garden.",
        )),
        Part("chat-4", "A record crowd", (
            "We have got over two hundred people watching right now, that is a record, thank you all.",
            "Somebody asked about my boots. They are just cheap rubber boots from the farm store, nothing "
            "fancy, but they have survived about ten years of mud.",
            "And a question about the buzzing in the background. Yes, those are my neighbour's bee hives, and "
            "they do a great job on my squash flowers.",
        )),
        Part("compost", "Compost", (
            "Quick tour of the compost bins over here.",
            "The recipe is roughly three parts brown to one part green by volume. Browns are dry leaves, straw "
            "and cardboard, greens are kitchen scraps and fresh grass clippings.",
            "Keep the pile as damp as a wrung-out sponge, and turn it every week or two with a garden fork to "
            "get air into the middle.",
            "If it smells like rotten eggs, it is too wet and has no air. Mix in shredded cardboard and turn it.",
            "No meat, no dairy and no oily food in the pile, unless you want every raccoon in the neighbourhood "
            "visiting at night.",
            "A hot pile reaches about sixty degrees in the middle, and it is ready in two to three months when "
            "it smells like a forest floor.",
        )),
        Part("chat-5", "The cat", (
            "Hold on, the cat is trying to get into the seedling trays again. Out you go.",
            "Okay, he is out. Where were we. Oh, someone in the chat asks what I am drinking. It is a mint tea "
            "from the mint by the back door, which by the way will take over your whole garden if you let it.",
            "And Tom asks if I ever grow anything besides vegetables. A few dahlias for my wife, and a lemon "
            "tree in a pot that comes inside every winter and sulks until spring.",
        )),
        Part("aphids", "Aphids", (
            "And here we have some visitors on this pepper plant. Aphids.",
            "Aphids cluster on the undersides of new leaves and on the growing tips, and they leave a sticky "
            "residue that attracts ants.",
            "The first line of defence is simply a strong blast of water from the hose, every other day for a "
            "week.",
            "If that is not enough, mix a teaspoon of mild liquid castile soap into a litre of water and spray "
            "the undersides of the leaves, in the evening, so the sun does not scorch them.",
            "Ladybugs and lacewings eat hundreds of them, so plant dill and sweet alyssum nearby to invite the "
            "good bugs in.",
        )),
        Part("harvest", "Harvest", (
            "Finally, harvest time.",
            "Pick tomatoes when they are fully coloured and give slightly to a gentle squeeze.",
            "If frost is coming, pick every fruit that has started to blush and let them finish on the kitchen "
            "counter, stem side down. Not in the fridge.",
            "The fridge kills the flavour, so keep ripe tomatoes at room temperature and eat them within a few "
            "days.",
            "And save seeds from your best heirloom plant. Scoop them into a jar of water, let them ferment for "
            "three days, rinse and dry them on a paper plate.",
        )),
        Part("outro", "See you next Sunday", (
            "That is the stream for today. We covered soil, planting, staking, pruning, watering, compost, "
            "aphids and the harvest.",
            "Whether it is tomatoes, compost or bugs, I hope something here helps your garden this year.",
            "Thanks for watching, hit subscribe, and I will see you next Sunday in the garden.",
        )),
    ), (
        q("My soil test for the tomato bed just came back at five point five. What am I supposed to add, "
          "and how much of it?", "soil", 2),
        q("my seedlings got tall and floppy on the windowsill, do they go in the ground at the same level "
          "they sat in the pot or lower", "planting", 3),
        q("bush type tomato, remove side shoots or not", "pruning", 3),
        q("The bottoms of my tomatoes keep going black and leathery. I do water them, just not on any "
          "schedule. Is that related?", "watering", 3),
        q("compost heap stinks like sulfur", "compost", 3),
        q("Cold snap coming next week and half of what's on my vines is only just turning orange — leave "
          "them or bring them in?", "harvest", 2),
    ))


PYTHON_LECTURE = Recording(
    "python-lecture-7", "Lecture 7: writing Python you can maintain", "test", "long", (
        Part("intro", "Lecture 7", (
            "Okay, good morning everyone, let us get started. Can the people at the back hear me? Great.",
            "Today's lecture covers seven things: virtual environments, list comprehensions, handling "
            "exceptions, writing tests with pytest, logging, profiling slow code, and type hints.",
            "So: environments, comprehensions, exceptions, tests, logging, profiling and types. The slides are on "
            "the course page if you want to follow along.",
        )),
        Part("announcements", "Announcements", (
            "Before we start, a couple of announcements. The second assignment is due next Friday at midnight, "
            "and no, there will not be an extension this time.",
            "The grades for the first assignment are up. The average was seventy eight, which is good, but a lot "
            "of you lost points for not handling missing files, which, funnily enough, is part of today.",
            "Office hours move to Wednesday afternoon this week, because I am at a conference on Thursday. If "
            "that does not work for you, send me an email and we will find a time.",
        )),
        Part("venv", "Virtual environments", (
            "Let us begin with virtual environments.",
            "Every project gets its own environment, so project A can use one version of a library and project "
            "B another, without the two fighting over it.",
            "Create one with python dash m venv dot venv inside the project folder, and activate it with source "
            "dot venv slash bin slash activate.",
            "On Windows, the activate script lives in the Scripts folder instead of bin.",
            "Record your dependencies with pip freeze into a requirements file and commit that file. But never "
            "commit the environment folder itself. Put it in your gitignore.",
        )),
        Part("chat-1", "A question in the front row", (
            "Yes, a question in the front row. Conda? Conda is fine, different tool, same idea. We will stick "
            "with venv in this course.",
            "Another hand up. Which editor should you use? Whatever you like. I use a very old version of Emacs "
            "and my teaching assistant makes fun of me for it every single week.",
            "And somebody's laptop is playing music. Please mute it. Thank you.",
        )),
        Part("comprehensions", "List comprehensions", (
            "Next, list comprehensions.",
            "A comprehension builds a list in one expression: square brackets, the expression, then for x in "
            "something.",
            "You can filter with an if at the end, for example keeping only the even numbers.",
            "The same syntax with curly braces gives you a set, and with a key, a colon and a value, a "
            "dictionary. Inverting a dictionary is a one liner that way.",
            "If you do not need the whole list at once, use round brackets instead and you get a generator. It "
            "produces items lazily and uses almost no memory, even for a billion elements.",
            "Rule of thumb: if a comprehension needs two nested loops and a condition, write a normal for loop "
            "instead. Readability wins.",
        )),
        Part("exceptions", "Exceptions", (
            "Now, exceptions.",
            "Catch the specific exception you expect, like KeyError or FileNotFoundError. A bare except also "
            "catches keyboard interrupts, and then you cannot even stop your program with control C.",
            "Use try, except, else and finally. The else block runs only when nothing was raised, and finally "
            "always runs, which is where cleanup goes.",
            "Keep the try block small. Wrap only the one line that can fail, not forty lines, or you will catch "
            "errors you never meant to hide.",
            "Better still, use a with statement for files and locks, so they are closed even when an error "
            "happens.",
            "When you re-raise as a new exception, write raise new error from the original error, so the "
            "traceback keeps the real cause.",
        )),
        Part("chat-2", "Coffee break", (
            "Let us take a two minute break, I need more coffee. The machine in this building is terrible, by "
            "the way. I have complained to facilities three times.",
            "Okay, I am back. Did anyone watch the game last night? No? Tough crowd.",
            "Oh, and a reminder that the department hackathon is the weekend after next. There is free pizza, "
            "which I am told is the main reason anyone goes.",
            "Somebody asked whether they can use ChatGPT for the assignment. Read the policy on the course page. "
            "Short answer: you have to understand and explain every line you submit.",
        )),
        Part("testing", "Testing with pytest", (
            "Alright, testing with pytest.",
            "Test files start with test underscore, and so do test functions, and pytest finds them "
            "automatically. Just plain assert statements, no special methods to learn.",
            "Fixtures provide setup. A function decorated with pytest dot fixture, and any test that names it "
            "as an argument gets its return value.",
            "For a temporary folder, use the built in tmp path fixture, so your tests never write into your "
            "real project.",
            "Parametrize runs the same test over many inputs. Decorate it with pytest mark parametrize and give "
            "it a list of cases.",
            "Run pytest with dash x to stop at the first failure, and dash k with a word to run only the tests "
            "whose names match.",
            "And a test that cannot fail is worse than no test. Every time you write one, break the code on "
            "purpose once and make sure the test goes red.",
        )),
        Part("chat-3", "On the exam", (
            "Someone asked if this will be on the exam. Everything is on the exam. Just kidding. Mostly.",
            "Another question, from the online chat: are the lecture recordings going to stay up after the "
            "semester? Yes, until next September.",
            "And to whoever keeps leaving their umbrella in the second row every week, it is in the lost and "
            "found now. It is a very nice umbrella, with little ducks on it.",
        )),
        Part("logging", "Logging instead of print", (
            "Quick detour before profiling: please stop debugging with print statements.",
            "Use the logging module. At the top of each module, create a logger with logging dot get logger of "
            "double underscore name, so every message says which module it came from.",
            "Libraries should never configure logging themselves. Only the application's entry point calls "
            "basic config and sets the level and the format.",
            "Pick the level deliberately: debug for details you only want while hunting a bug, info for normal "
            "progress, warning when something is odd but the program carries on.",
            "And pass the values as arguments to the log call instead of formatting the string yourself, so the "
            "formatting only happens if the message is actually shown.",
        )),
        Part("profiling", "Profiling", (
            "Next: your code is slow. Do not guess. Measure.",
            "For small snippets use the timeit module. It runs the code many times and reports the best, so one "
            "noisy run does not fool you.",
            "For a whole program use c profile: python dash m c profile dash s cumulative, then your script. "
            "Sorting by cumulative time shows which function the time is really spent under.",
            "Nine times out of ten, the culprit is a membership test on a list inside a loop. Turn the list into "
            "a set, and each lookup goes from linear to constant time.",
            "And cache pure functions that get called with the same arguments, with functools dot lru cache.",
        )),
        Part("types", "Type hints", (
            "Finally, type hints.",
            "Hints do not change how Python runs. They document intent, and a checker like mypy reads them and "
            "finds bugs before you run anything.",
            "I know some of you think they are just extra typing, pun intended. Try them on one project and you "
            "will not go back, your editor's autocomplete alone gets twice as good.",
            "Since Python three point ten you can write int, vertical bar, None, instead of Optional of int.",
            "Start with the function signatures at module boundaries. You do not need to annotate every local "
            "variable.",
            "For records of data, a dataclass gives you the init, the repr and the equality for free, from "
            "nothing but the annotated fields. Add frozen equals true and it becomes immutable and hashable.",
            "And run mypy in your continuous integration, so a type error fails the build instead of waiting for "
            "a user to find it.",
        )),
        Part("outro", "Next week", (
            "Okay, that is all for today. We did environments, comprehensions, exceptions, testing, logging, "
            "profiling and type hints.",
            "Next week: packaging and publishing your own library. Read chapter nine before you come.",
            "And for those watching the recording online, thanks for watching, and see you next week.",
        )),
    ), (
        q("About to push my project to GitHub for the first time. Does the isolated interpreter folder go up "
          "with it?", "venv", 4),
        q("I'm building a list of a few hundred million squares and my laptop runs out of RAM. Is there a "
          "cheaper way to loop over them?", "comprehensions", 3),
        q("ctrl-c does nothing, script wrapped in try/except", "exceptions", 1),
        q("pytest scratch directory for a test that creates files", "testing", 3),
        q("My script takes forever and I have no idea which part is to blame. Where would you start looking?",
          "profiling", 2),
        q("still need Optional[int] or is there shorter syntax now", "types", 2),
    ))


PHOTO_WORKSHOP = Recording(
    "photography-workshop", "Beginners' photography workshop: off auto in one afternoon", "test", "long", (
        Part("intro", "Welcome", (
            "Hello and welcome to the beginners' photography workshop, here at the community arts centre. "
            "Lovely to see so many new faces.",
            "This afternoon we cover aperture and depth of field, shutter speed and motion, ISO and noise, "
            "reading the histogram, getting sharp focus, composition, and shooting in golden hour light.",
            "Aperture, shutter, ISO, exposure, focus, composition and light. By the end, you will be able to "
            "take your camera off auto.",
        )),
        Part("sponsor", "Thanks to Lumen Camera Rentals", (
            "A quick thank you to Lumen Camera Rentals, who lent us the cameras you are holding today.",
            "If you want to try a lens before buying it, they rent by the weekend, and workshop students get "
            "twenty percent off.",
        )),
        Part("aperture", "Aperture", (
            "Let us start with aperture, the opening inside the lens.",
            "The f-number is a fraction, so a small number like f two means a wide opening, and a big number "
            "like f sixteen means a tiny one.",
            "A wide aperture gives a shallow depth of field: the subject sharp and the background melted into "
            "a soft blur. That is the portrait look.",
            "For landscapes, where you want everything sharp from the rock in front to the mountains at the "
            "back, stop down to f eight or f eleven.",
            "Do not go all the way to f twenty two, though. At very small apertures, diffraction makes the whole "
            "image slightly soft.",
            "Depth of field also depends on distance. The closer you are to your subject, the thinner the sharp "
            "zone, so for close-ups of flowers you may need f eight just to get one whole petal sharp.",
        )),
        Part("chat-1", "Phones welcome", (
            "Someone asked if phones count as cameras today. Absolutely, most of this applies to your phone too.",
            "Somebody else asked whether we will cover editing. Not today, that is next month's workshop, and it "
            "fills up fast, so sign up at the front desk.",
            "And the cafe downstairs closes at four, so if you want a coffee, go in the break.",
            "Also, the fire exits are at the back and on the left, and the toilets are down the corridor past "
            "the pottery studio. Mind the wet clay on the floor.",
            "And please put your name on the sign-in sheet going around, the arts centre needs the numbers for "
            "its funding, and it means we can keep these workshops free.",
        )),
        Part("shutter", "Shutter speed", (
            "Next, shutter speed: how long the sensor is exposed.",
            "To freeze fast action, like a child running or a bird taking off, use one five hundredth of a "
            "second or faster.",
            "For sharp handheld shots, a good rule is one over the focal length. With a fifty millimetre lens, "
            "use at least one fiftieth of a second.",
            "Slow shutter speeds show motion. Half a second on a tripod turns a waterfall into silky white "
            "threads.",
            "In bright daylight you may not be able to go that slow without overexposing, so a neutral density "
            "filter, basically sunglasses for your lens, cuts the light by several stops.",
            "When you use a tripod, turn off image stabilisation and use the two second self timer, so pressing "
            "the button does not shake the camera.",
        )),
        Part("chat-2", "Warm in here", (
            "Let me just open a window, it is getting warm in here with all of us.",
            "There is a wedding party outside taking photos by the fountain, by the way. We are not going to "
            "critique them. Well, maybe a little, after the break.",
            "Someone in the back asked what my first camera was. A second hand film camera I bought with my "
            "paper round money. I still have it at home.",
            "I shot my first roll of film at my cousin's wedding, and every single picture was out of focus. "
            "Twenty four blurry photos. So if your pictures today are not perfect, you are in good company.",
        )),
        Part("iso", "ISO", (
            "Now ISO, the sensitivity of the sensor.",
            "Low ISO, like one hundred, gives the cleanest image. Every time you double it you need half the "
            "light, but you also get more grain, what we call noise.",
            "Indoors without a flash, it is better to raise the ISO to three thousand two hundred and get a "
            "sharp, slightly grainy photo, than to keep the ISO low and get a blurry one.",
            "Auto ISO, with a minimum shutter speed set, is a great setting for beginners at events.",
            "Modern cameras are much better at high ISO than they were ten years ago, so do not be afraid of "
            "numbers that would have scared you then.",
        )),
        Part("exposure", "Reading the histogram", (
            "Before we move on, two tools that tell you whether the exposure is right.",
            "The histogram is the little graph on the back of the camera. If it is piled up against the right "
            "edge, the highlights are blown out, and that detail is gone for good.",
            "Snow and white beaches fool the light meter into underexposing, so they come out grey. Dial in plus "
            "one stop of exposure compensation.",
            "A dark stage or a black cat does the opposite. The camera brightens it into a muddy grey, so dial "
            "in minus one stop.",
            "And turn on the highlight warning, the blinkies, which flash wherever the picture is pure white.",
        )),
        Part("chat-4", "Which camera to buy", (
            "A question I get every single workshop: which camera should I buy? Honestly, the one you will "
            "carry. A small camera in your pocket beats a big one at home on the shelf.",
            "And lenses matter more than bodies. A cheap fifty millimetre f one point eight lens is the best "
            "hundred dollars most of you will ever spend.",
            "I bought mine fifteen years ago and it is still on my camera more than any other lens. Right, "
            "let us get back to it.",
        )),
        Part("focus", "Sharp focus", (
            "Let us talk about focus, because a sharp eye is what makes a portrait.",
            "Switch your camera from the automatic area mode to a single focus point, and put that point on the "
            "nearest eye of your subject.",
            "For moving subjects, use continuous autofocus, called AI servo or AF-C depending on the brand, "
            "which keeps tracking as the subject moves.",
            "Many photographers move focusing to a back button, so half pressing the shutter does not refocus "
            "every time they recompose.",
            "And check focus by zooming in on the screen after the shot, not by looking at the tiny full "
            "picture. Everything looks sharp when it is the size of a postage stamp.",
        )),
        Part("chat-3", "Something red", (
            "Okay, ten minute break. Go outside and take three photos of something red, and we will look at "
            "them together afterwards.",
            "Try each one with a different setting we have talked about, so you can compare them side by side "
            "on the big screen when you come back.",
            "Welcome back. Some great red things. Someone photographed a fire extinguisher, very brave.",
            "And somebody got a red squirrel on the bird feeder, which frankly is better than anything I have "
            "taken all year. Well done.",
        )),
        Part("composition", "Composition", (
            "Composition now.",
            "Turn on the grid in your viewfinder. Placing the subject on one of the lines, or where two lines "
            "cross, usually looks more balanced than the dead centre. That is the rule of thirds.",
            "Use leading lines, like a road, a fence or a river, to pull the viewer's eye toward your subject.",
            "Check the edges of the frame before you press the button. A branch growing out of someone's head "
            "is the most common mistake I see.",
            "And get lower, or higher. Most beginner photos are taken from standing eye height. Kneeling down "
            "changes everything, especially with kids and pets.",
            "And then break all of these rules once you know them. A subject right in the middle of a perfectly "
            "symmetrical scene can be very powerful.",
        )),
        Part("light", "Light", (
            "Finally, light.",
            "The best light is in golden hour, roughly the first and the last hour of sunlight, when the sun is "
            "low, warm and soft.",
            "Midday sun gives harsh shadows under the eyes. If you have to shoot then, move your subject into "
            "open shade, under a tree or next to a building.",
            "Set the white balance to daylight rather than auto at sunset. Otherwise the camera corrects away "
            "the warm colours you came for.",
            "And shoot in raw if your camera can. It keeps much more information, so you can fix the exposure "
            "and the white balance later.",
            "Overcast days are underrated, by the way. A cloudy sky is a giant soft box, perfect for portraits "
            "and for flowers, with no harsh shadows at all.",
        )),
        Part("outro", "Thanks for coming", (
            "That is our workshop. Aperture, shutter speed, ISO, the histogram, focus, composition and light.",
            "Take your camera off auto this week, and practise one thing at a time.",
            "Thanks for coming, and to everyone watching the recording, thanks for watching, and please "
            "subscribe.",
        )),
    ), (
        q("Every picture from my kid's birthday party indoors came out blurry. Should I be scared of cranking "
          "up the sensitivity?", "iso", 2),
        q("waterfall smooth silky water effect settings", "shutter", 3),
        q("Whenever I frame someone in the park there's a tree or a lamp post that seems to sprout from their "
          "skull. Any advice?", "composition", 3),
        q("sunset shots look dull and bluish instead of the orange I actually saw", "light", 3),
        q("My dog never sits still and the camera keeps losing him as he runs around the yard.", "focus", 2),
        q("landscape front to back sharp which f-stop", "aperture", 3),
    ))


LONG_TEST = (GARDEN_STREAM, PYTHON_LECTURE, PHOTO_WORKSHOP)
