"""Short how-to videos (1–2 min): a title line naming the topic, sometimes "in this video I'll
show you…", the steps, and a "thanks for watching" outro. Two or three questions each."""
from __future__ import annotations

from .corpus import Part, Recording, q


def short(slug: str, title: str, split: str, intro: tuple[str, ...], steps: tuple[str, ...], outro: str,
          questions) -> Recording:
    """Questions point at line indices of the steps part."""
    parts = (Part("title", title, intro), Part("steps", title, steps), Part("outro", "Thanks for watching", (outro,)))
    return Recording(slug, title, split, "short", parts, tuple(q(text, "steps", *lines) for text, *lines in questions))


SHORT = (
    short("sharpen-knife-whetstone", "How to sharpen a kitchen knife on a whetstone", "dev", (
        "How to sharpen a kitchen knife on a whetstone.",
        "In this video I'll show you how to get a dull chef's knife razor sharp again.",
    ), (
        "Soak the stone in water for ten to fifteen minutes, until it stops releasing air bubbles.",
        "Start on the coarse side, usually one thousand grit, with the stone on a damp towel so it cannot slide.",
        "Hold the blade at about fifteen to twenty degrees. Two coins stacked under the spine are a good guide "
        "for the angle.",
        "Push the edge across the stone from heel to tip, ten strokes, until you can feel a small burr along "
        "the other side.",
        "Flip the knife and repeat on the second side, with the same number of strokes.",
        "Move to the fine side, six thousand grit, and do lighter alternating strokes to polish the edge.",
        "Test it by slicing a sheet of printer paper. It should glide through without tearing.",
    ), "Thanks for watching, and subscribe for more kitchen basics.", (
        ("how do I know the sharpening stone has been in the water long enough", 0),
        ("what's an easy trick to hold a steady angle while sharpening", 2),
        ("how can I tell if my knife is actually sharp afterwards", 6),
    )),
    short("descale-electric-kettle", "How to descale an electric kettle", "dev", (
        "How to descale an electric kettle.",
    ), (
        "If you live in a hard water area, you will see white chalky scale building up on the heating element.",
        "Fill the kettle halfway with equal parts white vinegar and water.",
        "Bring it to the boil, then switch it off and let it sit for one hour.",
        "For stubborn spots, scrub gently with a soft bottle brush. Never use steel wool, it scratches the "
        "stainless steel.",
        "Or use citric acid instead of vinegar, one tablespoon in half a litre of water. It works just as well "
        "and has no smell.",
        "Empty it, then boil fresh water two or three times to get rid of any vinegar taste.",
        "Do this once a month and your kettle will boil faster and last longer.",
    ), "That's it, thanks for watching, and don't forget to subscribe.", (
        ("what liquid gets rid of the crust inside my kettle", 1),
        ("is there a descaler that doesn't leave a sour smell", 4),
        ("why does my tea taste sour after I cleaned the kettle", 5),
    )),
    short("replace-disc-brake-pads", "Replacing disc brake pads on a mountain bike", "dev", (
        "Replacing the disc brake pads on a mountain bike.",
        "In this video I'll show you how to swap worn pads in about ten minutes.",
    ), (
        "Check the pad thickness first. If the friction material is thinner than one and a half millimetres, "
        "it is time.",
        "Take the wheel off, then pull the retaining pin out of the caliper with needle nose pliers.",
        "Slide the old pads and the spring clip out of the caliper, noting which way the spring sits.",
        "Push the pistons back into the caliper with a plastic tire lever, never a screwdriver, which can crack "
        "them.",
        "Fit the new pads onto the spring, slide them in together, and put the retaining pin back.",
        "Do not touch the pad surface or the rotor with your fingers, skin oil makes brakes squeal. Clean the "
        "rotor with isopropyl alcohol.",
        "Bed in the new pads: ride to about twenty kilometres an hour and brake hard down to walking speed, "
        "twenty times.",
    ), "Thanks for watching, and subscribe for more bike maintenance.", (
        ("how worn do bike brake pads have to be before I change them", 0),
        ("what should I use to spread the pistons apart so the new pads fit", 3),
        ("how do I break in fresh disc pads", 6),
    )),
    short("jump-start-a-car", "How to jump start a car", "test", (
        "How to jump start a car with a dead battery.",
    ), (
        "Park the working car close, nose to nose, but do not let the two cars touch, and switch both engines off.",
        "Put a red clamp on the positive terminal of the dead battery, then the other red clamp on the positive "
        "terminal of the good battery.",
        "Next, a black clamp on the negative terminal of the good battery.",
        "The last black clamp goes on bare metal on the dead car's engine block, away from the battery, because "
        "a battery can vent hydrogen and a spark could ignite it.",
        "Start the working car and let it run for three minutes, then try to start the dead one.",
        "Remove the cables in the reverse order, and drive for at least thirty minutes so the battery recharges.",
    ), "Thanks for watching, please like and subscribe.", (
        ("Final jumper lead — I read somewhere it shouldn't go on the flat battery itself, so where then?", 3),
        ("the car finally started after the jump, ok to switch it off again once I'm home in five minutes?", 5),
    )),
    short("clean-shower-grout", "Cleaning grout in a tiled shower", "test", (
        "Cleaning dirty grout in a tiled shower.",
        "In this video I'll show you how to make grout look new without harsh chemicals.",
    ), (
        "Start by spraying the tiles with hot water to loosen the surface grime.",
        "Mix a paste of three parts baking soda to one part water and spread it along the grout lines.",
        "Spray the paste with a mix of half vinegar and half water, and let it fizz for five minutes.",
        "Scrub each line with a stiff nylon grout brush, an old toothbrush works too. Avoid wire brushes, they "
        "tear the grout out.",
        "For mildew stains, dissolve oxygen bleach powder in warm water and leave it on for fifteen minutes.",
        "Rinse, dry with a towel, and after forty eight hours seal the grout with a penetrating sealer so it "
        "stays clean.",
    ), "Thanks for watching, and subscribe for more cleaning tips.", (
        ("There are black spots in the shower joints that the fizzy paste didn't shift. Anything stronger "
         "that's still safe?", 4),
        ("shower tile lines stay clean longer afterwards how", 5),
        ("Would a metal-bristle brush get the job done faster?", 3),
    )),
    short("propagate-pothos", "How to propagate pothos from cuttings", "test", (
        "How to propagate a pothos plant from cuttings.",
        "In this video I'll show you how to turn one pothos into five, for free.",
    ), (
        "Find a healthy vine and look for the nodes, the little brown bumps where a leaf meets the stem.",
        "Cut just below a node with clean scissors, keeping two or three leaves on each cutting.",
        "Put the cuttings in a glass of room temperature water so the nodes are under water but the leaves stay dry.",
        "Keep the glass in bright indirect light, and change the water every week so it does not go stagnant.",
        "Roots appear in about two weeks. When they are five centimetres long, plant the cuttings in a small "
        "pot with well draining soil.",
        "Keep the soil a bit moister than usual for the first couple of weeks while the roots adjust.",
    ), "Thanks for watching, and subscribe for more plant videos.", (
        ("Where exactly along the vine should the snip be if I want the piece to grow roots?", 0, 1),
        ("pothos in a jar on the sill — at what point do they move into dirt", 4),
    )),
    short("hang-heavy-picture", "How to hang a heavy picture frame", "dev", (
        "How to hang a heavy picture frame.",
    ), (
        "Decide the height first. The centre of the picture should be about one hundred and forty five "
        "centimetres from the floor, which is eye level for most people.",
        "Find a stud with a stud finder, or knock on the wall and listen for a solid sound instead of a hollow one.",
        "If there is no stud where you need it, use a toggle bolt or a self drilling anchor rated for at least "
        "twice the weight of the picture.",
        "Measure from the top of the frame down to the hanging wire pulled tight, and subtract that from your "
        "mark, so the nail goes in at the right height.",
        "For wide frames, use two hooks about a third of the way in from each side. The picture stays level "
        "much longer.",
        "Put a strip of painter's tape where you will drill, so the plaster does not crumble around the hole.",
    ), "Thanks for watching, and subscribe for more home tips.", (
        ("how high up should the middle of a painting hang", 0),
        ("there's nothing solid behind the wall where I want the frame, what do I use", 2),
        ("how do I stop a wide frame from going crooked over time", 4),
    )),
    short("cold-brew-coffee", "How to make cold brew coffee at home", "dev", (
        "How to make cold brew coffee at home.",
        "In this video I'll show you my simple overnight method.",
    ), (
        "Use a coarse grind, like breadcrumbs. A fine grind makes the coffee bitter and muddy, and it clogs "
        "the filter.",
        "Mix one part coffee to eight parts cold water by weight, for example one hundred grams of coffee to "
        "eight hundred grams of water.",
        "Stir so all the grounds are wet, cover the jar, and leave it at room temperature for twelve to "
        "eighteen hours.",
        "Strain it through a paper filter or a sieve lined with cheesecloth.",
        "That makes a concentrate. Dilute it one to one with water or milk and pour it over ice.",
        "It keeps in the fridge for up to two weeks in a sealed bottle.",
    ), "Thanks for watching, hit subscribe for more coffee videos.", (
        ("what size should the beans be ground for cold brew", 0),
        ("how long is homemade cold brew good for", 5),
        ("how many hours should the grounds soak", 2),
    )),
    short("fix-running-toilet", "How to fix a running toilet", "dev", (
        "How to fix a running toilet.",
    ), (
        "Take the tank lid off and listen. If water keeps trickling into the overflow tube, the fill level is "
        "set too high.",
        "Lower the float. On a modern fill valve, turn the adjustment screw or slide the clip down, so the "
        "water stops about two centimetres below the top of the overflow tube.",
        "If the tank slowly empties into the bowl instead, the flapper is leaking. Put a few drops of food "
        "colouring in the tank, and if colour shows up in the bowl within twenty minutes, that is your culprit.",
        "To replace the flapper, shut off the water at the valve behind the toilet, flush to empty the tank, "
        "and unhook the old flapper from the pegs on the overflow tube.",
        "Take the old flapper to the store with you, because they come in two inch and three inch sizes.",
        "Hook the new one on and adjust the chain so there is about a centimetre of slack when the flapper is "
        "closed.",
    ), "Thanks for watching, and subscribe if this saved you a plumber.", (
        ("my toilet refills by itself every so often, how do I confirm the seal at the bottom is to blame", 2),
        ("how loose should the flush chain be", 5),
    )),
    short("iron-a-dress-shirt", "How to iron a dress shirt", "test", (
        "How to iron a dress shirt.",
        "In this video I'll show you how to get a crisp shirt in under five minutes.",
    ), (
        "Iron the shirt while it is still slightly damp, or mist it with a spray bottle. Creases in dry cotton "
        "are much harder to get out.",
        "Set the iron to the cotton setting, or lower for blends, and check the label first.",
        "Start with the collar, underside first, working from the points toward the middle so you do not push "
        "wrinkles into the tips.",
        "Then the cuffs and the sleeves, laying each sleeve flat along its seam.",
        "Do the back, then the two front panels, and iron around the buttons, never over them.",
        "Hang it up straight away on a proper hanger, and let it cool for ten minutes before you wear it. Warm "
        "fabric wrinkles again.",
    ), "Thanks for watching, like and subscribe.", (
        ("Bone-dry shirt straight out of the dryer, and the wrinkles simply won't budge no matter how hot the "
         "iron is.", 0),
        ("collar which way so the points don't crease", 2),
    )),
    short("python-venv-setup", "Setting up a Python virtual environment", "test", (
        "Setting up a Python virtual environment in two minutes.",
    ), (
        "Open a terminal in your project folder and check your Python version with python three dash dash "
        "version.",
        "Create the environment with python three dash m venv, followed by a folder name. I use dot venv.",
        "Activate it. On Mac and Linux, source the activate script, and your prompt will show the environment "
        "name in brackets.",
        "Upgrade pip inside the environment first, with python dash m pip install dash dash upgrade pip, "
        "because the bundled one is often old.",
        "Install your packages with pip install, and they will only exist inside this environment.",
        "When you are done, type deactivate to go back to your system Python. To throw the environment away, "
        "just delete the folder.",
    ), "Thanks for watching, and subscribe for more Python tips.", (
        ("The package installer that came with my fresh sandbox is ancient — anything to run before adding "
         "libraries?", 3),
        ("finished with the project env, how to exit it and get rid of it", 5),
    )),
    short("fluffy-pancakes", "Fluffy pancakes from scratch", "test", (
        "Fluffy pancakes from scratch.",
        "In this video I'll show you how to make pancakes that actually rise.",
    ), (
        "Whisk together one and a half cups of flour, two teaspoons of baking powder, a tablespoon of sugar and "
        "half a teaspoon of salt.",
        "In another bowl, whisk one and a quarter cups of milk, one egg and three tablespoons of melted butter.",
        "Pour the wet into the dry and stir only until just combined. Lumps are fine. Over-mixing makes them "
        "tough and flat.",
        "Let the batter rest for ten minutes while the pan heats.",
        "Cook on medium heat with a little butter, and flip when bubbles pop on the surface and the edges look "
        "dry, after about two minutes.",
        "Keep the finished pancakes warm on a rack in a ninety degree oven.",
    ), "Thanks for watching, and subscribe for more breakfast recipes.", (
        ("Mine always come out flat and chewy, almost rubbery. What am I doing wrong with the batter?", 2),
        ("pancake when to turn over", 4),
        ("Feeding a crowd — how do I stop the first batch going cold while I cook the rest?", 5),
    )),
)
